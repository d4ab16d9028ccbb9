// Before any check: does the target speak this API, does it take the key, does it hold the ids the
// checks name? A run pointed at the wrong place (the docs server, a base URL ending in the version,
// the other API's port, a page of some other server), or given a key or fixtures the target does
// not know, ends here with one message and exit 2, not with a wall of failures.
import { getApi, isJsonMediaType, listApis, mediaTypeOf, type WalkedOperation } from "@api-contracts/contract-core";
import { CheckFailure, type CheckContext, type KitApi } from "./checks/types.js";
import type { CallOptions, CallResult } from "./http.js";
import { contractOf } from "./judge.js";
import { exampleOf, incomingOf } from "./generate/arbitraries.js";
import { UsageError } from "./fixtures.js";

/** Checks a body against the documented error shapes (4xx and 5xx JSON schemas) of one API. */
function errorShapeOf(api: string): (body: unknown) => boolean {
  const { validators } = contractOf(api);
  const pointers = validators
    .walkedOperations()
    .flatMap((op) => op.responses.filter((response) => /^[45]/.test(response.status) || response.status === "default"))
    .flatMap((response) => response.media.filter((media) => isJsonMediaType(media.mediaType.toLowerCase())).map((media) => media.schema));
  const schemas = [...new Set(pointers)].flatMap((pointer) => (pointer ? [validators.schema(pointer)] : []));
  return (body) => schemas.some((validate) => validate(body));
}

/** The request the preflight sends: one the API refuses for want of a key, and whether it may be sent with the key too. */
interface Probe {
  operation: WalkedOperation;
  call: CallOptions;
  /** Safe with the key: a body the API refuses after reading the key, or a GET it serves. */
  keyed: boolean;
}

/**
 * A request of the selected operations (of any when none of them has one) that the API refuses
 * without a key; preferably one that changes nothing with the key either: a body refused as
 * invalid once the key is read, or a GET.
 */
function probeOf(ctx: CheckContext, operations: ReadonlySet<string>): Probe | undefined {
  const { core } = ctx.contract;
  const candidates: Probe[] = [];
  const all = ctx.contract.listOperations();
  for (const operation of [...all.filter((op) => operations.has(op.operationId)), ...all.filter((op) => !operations.has(op.operationId))]) {
    const request = exampleOf(ctx.contract, operation);
    const incoming = incomingOf(operation, request, core.api.key.prefix);
    const { authorization: _key, ...keyless } = incoming.headers;
    if (core.decide({ ...incoming, headers: keyless }).refusal?.kind !== "unauthorized") continue;
    if (ctx.contract.requestBodySchema(operation.operationId) && core.decide({ ...incoming, body: "{}" }).refusal?.kind === "invalid") {
      return { operation, call: { ...request, body: {} }, keyed: true };
    }
    candidates.push({ operation, call: request, keyed: operation.method === "GET" });
  }
  return candidates.find((probe) => probe.keyed) ?? candidates[0];
}

/** Why an answer says the target does not serve this API (nothing there, not its media type, not JSON, a status it never answers); undefined when it may. */
function offTarget(result: CallResult, expected: number | undefined): boolean {
  if (result.exchange.status === 404 && expected !== 404) return true;
  return result.verdict.problems.some((problem) => problem.in === "status" || ["media-type", "json", "operation"].includes(problem.keyword));
}

/**
 * What the answers of a target that does not serve the API suggest, in one sentence: a version at
 * the end of the base URL, the other API's error shape, a web page, a path prefix, or some other server.
 */
async function whyOff(ctx: CheckContext, service: string, result: CallResult, pageTitle: (url: string) => Promise<string | undefined>): Promise<string> {
  const api = getApi(service);
  const { method, path, status, contentType } = result.exchange;
  const base = ctx.shownBaseUrl;
  const answered = `${method} ${path} without a key was answered ${status}${contentType ? ` ${mediaTypeOf(contentType)}` : ""}`;
  const version = /\/(v\d+)\/*$/.exec(ctx.wire.url.pathname);
  if (version) {
    const trimmed = base.slice(0, base.length - version[0].replace(/\/+$/, "").length);
    return `--base-url ends in /${version[1]}, but the ${api.title}'s paths already carry their version (${method} ${path}), so requests went to /${version[1]}${path}; try --base-url ${trimmed}`;
  }
  const json = isJsonMediaType(contentType ?? "") && typeof result.body === "object" && result.body !== null;
  if (json) {
    const mine = errorShapeOf(service);
    const other = listApis().find((candidate) => candidate.name !== service && errorShapeOf(candidate.name)(result.body) && !mine(result.body));
    if (other) return `${answered}, in the ${other.title}'s error shape: this port seems to serve the ${other.title}, not the ${api.title}; point --base-url at the ${api.title} (its mock listens on ${api.mockPort} by default), or run with --service ${other.name}`;
  } else {
    const title = await pageTitle(base);
    if (title !== undefined) return `${answered}, and ${base} serves a web page${title ? ` ("${title.slice(0, 80)}")` : ""}: this looks like a web site such as the docs server, not the ${api.title} (its mock listens on ${api.mockPort} by default)`;
    if (status !== 404) return `${answered}, not JSON: --base-url does not seem to serve the ${api.title}`;
  }
  if (status === 404) return `${answered}: no ${api.title} operation seems to be served at this path; if the API sits under a path prefix, put the prefix in --base-url (${base}/<prefix>)`;
  return `${answered}, which the ${api.title} does not answer (${result.verdict.reason}): check that --base-url serves the ${api.title} and that --service ${service} is the right API`;
}

/** Sends one request of the preflight; an answer the kit will not read whole ends the run there. */
async function send(ctx: CheckContext, operation: string, call: CallOptions): Promise<CallResult> {
  try {
    return await ctx.caller.call(operation, call);
  } catch (error) {
    if (error instanceof CheckFailure) throw new UsageError(`the target does not answer as the API: ${error.message}`);
    throw error;
  }
}

/**
 * Checks, with a few requests, that the target speaks the API (a request without a key gets an
 * answer the API gives), takes the key (the same request with it is not refused 401), and, at the
 * levels that use them, holds the ids of the fixtures (the API's module says how to ask). Throws a
 * UsageError with the one message that says what to change; the key is never in it.
 */
export async function preflight(ctx: CheckContext, service: string, api: KitApi, operations: ReadonlySet<string>, pageTitle: (url: string) => Promise<string | undefined>): Promise<void> {
  const probe = probeOf(ctx, operations);
  if (probe) {
    const { operationId } = probe.operation;
    const unkeyed = await send(ctx, operationId, { ...probe.call, auth: "none" });
    if (offTarget(unkeyed, ctx.caller.refusalFor(unkeyed.request)?.status)) throw new UsageError(`the target does not answer as the ${getApi(service).title}: ${await whyOff(ctx, service, unkeyed, pageTitle)}`);
    if (probe.keyed) {
      const keyed = await send(ctx, operationId, probe.call);
      if (keyed.exchange.status === 401) {
        throw new UsageError(`the target refuses the API key: ${keyed.exchange.method} ${keyed.exchange.path} carrying it was answered 401; check --api-key (or CONTRACT_API_KEY, or api_keys.${service} in the fixtures)`);
      }
    }
  }
  if (ctx.level === "schema" || ctx.level === "behavior") {
    const missing = await api.preflight?.(ctx, operations);
    if (missing) throw new UsageError(missing);
  }
}

/** The title of the web page at `url` ("" for an untitled one), or undefined when it serves none: one request, within the run's limits. */
export async function pageTitleAt(url: string, limits: { timeoutMs: number; maxAnswerBytes: number }, send: typeof globalThis.fetch): Promise<string | undefined> {
  try {
    const response = await send(url, { signal: AbortSignal.timeout(limits.timeoutMs), redirect: "manual" });
    if (mediaTypeOf(response.headers.get("content-type")) !== "text/html") {
      await response.body?.cancel();
      return undefined;
    }
    // A prefix is enough: the title comes first, and a page may be larger than any answer the kit reads.
    const reader = response.body?.getReader();
    let text = "";
    while (reader && text.length < Math.min(limits.maxAnswerBytes, 65_536)) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader?.cancel();
    return /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.trim().replace(/\s+/g, " ") ?? "";
  } catch {
    return undefined;
  }
}
