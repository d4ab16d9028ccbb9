import type { GeneratedRequest } from "./arbitraries.js";

/** Where a value sits in a request body: member names and item indexes. */
export type Path = Array<string | number>;

function size(request: GeneratedRequest): number {
  return JSON.stringify(request).length;
}

function* leaves(value: unknown, path: Path = []): Generator<{ path: Path; value: unknown }> {
  yield { path, value };
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) yield* leaves(value[i], [...path, i]);
  else if (typeof value === "object" && value !== null) for (const [key, member] of Object.entries(value)) yield* leaves(member, [...path, key]);
}

/** A copy of `root` with the value at `path` replaced, or removed when it is DROP. */
export function replaceAt(root: unknown, path: Path, value: unknown | typeof DROP): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const copy = [...root];
    if (rest.length === 0 && value === DROP) copy.splice(head as number, 1);
    else copy[head as number] = replaceAt(copy[head as number], rest, value);
    return copy;
  }
  const copy = { ...(root as Record<string, unknown>) };
  if (rest.length === 0 && value === DROP) delete copy[head as string];
  else copy[head as string] = replaceAt(copy[head as string], rest, value);
  return copy;
}

export const DROP = Symbol("drop");

/** Smaller variants of one value: gone, shortened, simplified. */
function simpler(value: unknown): Array<unknown | typeof DROP> {
  const found: Array<unknown | typeof DROP> = [DROP];
  if (typeof value === "string" && value.length > 0) found.push("", value.slice(0, Math.ceil(value.length / 2)), value.slice(0, -1));
  if (Array.isArray(value) && value.length > 0) found.push([], value.slice(0, Math.ceil(value.length / 2)));
  if (typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length > 0) found.push({});
  if (typeof value === "number") found.push(0, 1, Math.trunc(value), Number(value.toPrecision(2)), Math.trunc(value / 2));
  return found;
}

/** Every request one step simpler than this one: a parameter or member dropped, a value shortened or simplified. */
function* simplerRequests(request: GeneratedRequest): Generator<GeneratedRequest> {
  for (const part of ["query", "headers"] as const) {
    for (const name of Object.keys(request[part])) {
      const { [name]: _dropped, ...rest } = request[part];
      yield { ...request, [part]: rest };
    }
  }
  for (const part of ["path", "query", "headers"] as const) {
    for (const [name, value] of Object.entries(request[part])) {
      for (const shorter of simpler(value)) if (shorter !== DROP && typeof shorter === "string") yield { ...request, [part]: { ...request[part], [name]: shorter } };
    }
  }
  if (request.body === undefined) return;
  for (const { path, value } of leaves(request.body)) {
    if (path.length === 0) continue;
    for (const candidate of simpler(value)) yield { ...request, body: replaceAt(request.body, path, candidate) };
  }
}

/**
 * Reduces a failing request greedily after fast-check's own shrinking: keeps taking the first
 * strictly smaller variant that `keep` accepts (still valid, or still invalid, per the kind of
 * data) and that still fails, until none does or `budget` tries are spent.
 */
export async function reduceRequest(
  request: GeneratedRequest,
  keep: (candidate: GeneratedRequest) => boolean,
  stillFails: (candidate: GeneratedRequest) => Promise<boolean>,
  budget = 200,
): Promise<{ request: GeneratedRequest; tries: number }> {
  let current = request;
  let tries = 0;
  let improved = true;
  while (improved && tries < budget) {
    improved = false;
    for (const candidate of simplerRequests(current)) {
      if (size(candidate) >= size(current) || !keep(candidate)) continue;
      if (++tries > budget) break;
      if (await stillFails(candidate)) {
        current = candidate;
        improved = true;
        break;
      }
    }
  }
  return { request: current, tries };
}
