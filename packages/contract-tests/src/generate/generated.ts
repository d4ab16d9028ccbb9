import fc from "fast-check";
import { describeProblem, isObject, resolvePointer, type WalkedOperation } from "@api-contracts/contract-core";
import { UnreachableError, type CallResult } from "../http.js";
import type { Contract } from "../judge.js";
import type { Fixtures } from "../fixtures.js";
import { curlOf, refusalMiss, snippet, type Check, type CheckContext, type Failure, type Hints, type Outcome } from "../checks/types.js";
import { generatorContext, requestProblems, validRequestArbitrary, type GeneratedRequest } from "./arbitraries.js";
import { mutationsOf, type Mutation } from "./mutations.js";
import { reduceRequest } from "./reduce.js";

export interface GenerationOptions {
  /** Examples per check (valid requests, invalid requests, linked sequences). */
  examples: number;
  seed: number;
  /** Called after each example. */
  onProgress?: (progress: Progress) => void;
}

export interface Progress {
  operation: string;
  check: string;
  done: number;
  total: number;
  /** A failure was found and is being reduced. */
  shrinking: boolean;
}

/** Requests made, when the checks are listed, to see whether an operation has a constraint a mutation can break. */
const BREAKABLE_SAMPLES = 20;

/** At most this many distinct failures are looked for in one check. */
const MAX_FAILURES_PER_CHECK = 5;

/** Separates the verdict on an answer from what the request was (not part of a failure's signature). */
const SEPARATOR = "--";

/** What makes two failures the same: the verdict on the answer without its numbers (ids, lengths, ports). */
export function signature(failure: string): string {
  return failure.split(` ${SEPARATOR} `)[0]!.replace(/\d+/g, "#").slice(0, 160);
}

/** Requests spent on shrinking one failure; past it, fast-check's remaining candidates are not sent. */
const SHRINK_REQUEST_BUDGET = 300;

/** One request of an example and the verdict on its answer; `failure` is undefined when it passed. */
interface Step {
  request: GeneratedRequest;
  operation: WalkedOperation;
  failure?: string;
}

/** Stops a property cleanly: the deadline passed, or the target cannot be reached (rethrown after). */
class Halt extends Error {}

function seedFor(seed: number, operation: string, check: string): number {
  let hash = seed | 0;
  for (const char of `${operation} ${check}`) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

/**
 * Judges the answer to a request the API serves (`source`: the operation a linked request came from,
 * and what it answered); undefined when it passes. A 400 passes only as a refusal the facts name as
 * depending on the target's state (`stateRefusals`).
 */
function judgeValid(ctx: CheckContext, operation: string, result: CallResult, source?: { operation: string; status: number }): string | undefined {
  const { status, bodyText } = result.exchange;
  if (status >= 500) return `a valid request got ${status}: ${snippet(bodyText)}`;
  if (!result.verdict.ok) return result.verdict.reason;
  if (status === 400 && !ctx.contract.core.stateRefusal(operation, { status, body: result.body })) {
    return `a request the description accepts was refused as invalid (400): ${snippet(bodyText)}`;
  }
  if (source && source.status < 300 && status === 404) return `the value ${source.operation}'s answer links to names nothing (404): ${snippet(bodyText)}`;
  return undefined;
}

/**
 * Judges the answer to a request that breaks one rule; undefined when it got the API's refusal: the
 * status (or one a client acts on alike) and the code the decision gives the request as sent.
 */
function judgeInvalid(ctx: CheckContext, result: CallResult): string | undefined {
  const { status, bodyText } = result.exchange;
  const decision = ctx.caller.decide(result.request);
  const expected = ctx.contract.core.refusalOf(decision);
  if (!expected) return undefined;
  const problems = decision.problems.map(describeProblem);
  // The decision's words, not the mutation's: reducing the request may change what it breaks.
  const broke = `the request breaks ${problems.length === 1 ? "one rule" : `${problems.length} rules`}: ${problems[0] ?? "(none)"}`;
  // An accepted request's answer (a new id, say) differs every time: it is not part of what failed.
  if (status < 400) return `expected ${expected.status}, got ${status} ${SEPARATOR} ${broke} ${SEPARATOR} answer: ${snippet(bodyText)}`;
  if (status >= 500) return `expected ${expected.status}, got ${status}: ${snippet(bodyText)} ${SEPARATOR} ${broke}`;
  if (!result.verdict.ok && status === expected.status) return `${result.verdict.reason} ${SEPARATOR} ${broke}`;
  const miss = refusalMiss(ctx.contract.core, expected, { status, body: result.body });
  if (miss) return `${miss} ${SEPARATOR} ${broke} ${SEPARATOR} answer: ${snippet(bodyText)}`;
  if (!result.verdict.ok) return `${result.verdict.reason} ${SEPARATOR} ${broke}`;
  return undefined;
}

/**
 * One mutation that breaks the request, chosen first by where and which kind of rule it breaks,
 * then among those: a large body offers many more places to break than a header does, and each kind
 * should get its turn. Candidates are judged (`invalid`) only as they are chosen: the first that the
 * API refuses, from the pick on.
 */
function pickMutation(mutations: Mutation[], pick: number, invalid: (request: GeneratedRequest) => boolean): Mutation | null {
  const groups = new Map<string, Mutation[]>();
  for (const mutation of mutations) {
    const key = `${mutation.where.split(" ")[0]} ${mutation.kind}`;
    groups.set(key, [...(groups.get(key) ?? []), mutation]);
  }
  const lists = [...groups.values()];
  for (let turn = 0; turn < lists.length; turn++) {
    const group = lists[(pick + turn) % lists.length]!;
    for (let offset = 0; offset < group.length; offset++) {
      const mutation = group[(Math.floor(pick / lists.length) + offset) % group.length]!;
      if (invalid(mutation.request)) return mutation;
    }
  }
  return null;
}

/** A runtime expression of a link (`$request.body#/lock/lock_id`, `$response.body#/id`), or a constant. */
function evaluate(expression: unknown, request: GeneratedRequest, answer: { body: unknown }): unknown {
  if (isObject(expression)) return Object.fromEntries(Object.entries(expression).map(([k, v]) => [k, evaluate(v, request, answer)]));
  if (typeof expression !== "string" || !expression.startsWith("$")) return expression;
  const body = /^\$(request|response)\.body(?:#(.*))?$/.exec(expression);
  if (body) return resolvePointer(body[1] === "request" ? request.body : answer.body, body[2] ?? "");
  const parameter = /^\$request\.(path|query|header)\.(.+)$/.exec(expression);
  if (parameter) return request[parameter[1] === "header" ? "headers" : (parameter[1] as "path" | "query")][parameter[2]!];
  return undefined;
}

interface Link {
  name: string;
  target: WalkedOperation;
  parameters: Record<string, unknown>;
  requestBody?: unknown;
}

function linksOf(operation: WalkedOperation, operations: WalkedOperation[]): Link[] {
  const found: Link[] = [];
  for (const response of operation.responses.filter((r) => r.status.startsWith("2"))) {
    const links = response.object.links;
    if (!isObject(links)) continue;
    for (const [name, link] of Object.entries(links)) {
      const target = isObject(link) && operations.find((op) => op.operationId === link.operationId);
      if (!target) continue;
      found.push({ name, target, parameters: isObject(link.parameters) ? link.parameters : {}, ...(link.requestBody !== undefined ? { requestBody: link.requestBody } : {}) });
    }
  }
  return found;
}

/** The request a link makes from an example: the generated one, with the linked values put in. */
function followLink(link: Link, generated: GeneratedRequest, request: GeneratedRequest, answer: { body: unknown }): GeneratedRequest | undefined {
  const next: GeneratedRequest = { path: { ...generated.path }, query: { ...generated.query }, headers: { ...generated.headers }, ...(generated.body !== undefined ? { body: generated.body } : {}) };
  for (const [name, expression] of Object.entries(link.parameters)) {
    const value = evaluate(expression, request, answer);
    if (value === undefined) return undefined;
    const parameter = link.target.parameters.find((p) => p.name === name);
    const where = parameter?.in === "header" ? "headers" : parameter?.in === "query" ? "query" : "path";
    next[where][name] = String(value);
  }
  if (link.requestBody !== undefined) {
    const body = evaluate(link.requestBody, request, answer);
    if (isObject(body) && Object.values(body).some((v) => v === undefined)) return undefined;
    next.body = body;
  }
  return next;
}

/**
 * The generated checks of an API, entries of the kit's registry like the hand-written ones: for
 * every operation, valid requests made from its schemas (`generated-valid`), requests that break
 * one constraint (`generated-invalid`), and, for every OpenAPI link, sequences that feed one answer
 * into the linked request (`generated-link-<name>`).
 */
export function generatedChecks(contract: Contract, hints: (fixtures: Fixtures | undefined) => Hints, options: GenerationOptions): Check[] {
  const checks: Check[] = [];
  const operations = contract.listOperations();
  const generated = (operation: WalkedOperation, name: string, what: string, link?: Link): Check => ({
    operation: operation.operationId,
    name,
    level: "schema",
    generated: true,
    what,
    run: (ctx) => runProperty(hints, ctx, operation, name, options, link),
  });
  const gen = generatorContext(contract);
  for (const operation of operations) {
    // An operation whose every input the description accepts (a query filter the service does not
    // check) has nothing to break: looking for a mutation there would never end.
    const invalid = (request: GeneratedRequest) => requestProblems(gen, operation, request).length > 0;
    const hasInput = fc.sample(validRequestArbitrary(gen, operation), { numRuns: BREAKABLE_SAMPLES, seed: options.seed }).some((request) => mutationsOf(gen, operation, request, invalid).length > 0);
    checks.push(generated(operation, "generated-valid", `${options.examples} requests made from the description are answered as documented, never 5xx, never refused as invalid`));
    if (hasInput) checks.push(generated(operation, "generated-invalid", `${options.examples} requests that each break one constraint get the API's refusal: the status and code its decision gives, with the documented body`));
    for (const link of linksOf(operation, operations)) {
      checks.push(generated(operation, `generated-link-${link.name}`, `${options.examples} sequences: a valid ${operation.operationId}, then ${link.target.operationId} with the values its link names`, link));
    }
  }
  return checks;
}

async function runProperty(
  hintsOf: (fixtures: Fixtures | undefined) => Hints,
  ctx: CheckContext,
  operation: WalkedOperation,
  check: string,
  options: GenerationOptions,
  link?: Link,
): Promise<Outcome> {
  const gen = generatorContext(ctx.contract, hintsOf(ctx.fixtures));
  const seed = seedFor(options.seed, operation.operationId, check);
  const valid = (request: GeneratedRequest, op = operation) => requestProblems(gen, op, request).length === 0;
  let halted: unknown;
  let examples = 0;

  const send = async (op: WalkedOperation, request: GeneratedRequest): Promise<CallResult> => {
    if (ctx.deadline.aborted) throw new Halt();
    try {
      return await ctx.caller.call(op.operationId, { path: request.path, query: request.query, headers: request.headers, body: request.body });
    } catch (error) {
      if (error instanceof UnreachableError) {
        halted ??= ctx.deadline.aborted ? undefined : error;
        throw new Halt();
      }
      throw error;
    }
  };

  // Each kind of example: the requests it sends and the failure it found, if any.
  let example: (value: unknown) => Promise<Step[]>;
  let arbitrary: fc.Arbitrary<unknown>;
  let keep: (request: GeneratedRequest) => boolean = (request) => valid(request);
  if (check === "generated-invalid") {
    const invalid = (request: GeneratedRequest) => !valid(request);
    // Shrinking the valid request under a mutation re-derives every mutation per candidate; the
    // bounded reduction below does the same job for invalid data at a fraction of the cost.
    arbitrary = fc
      .noShrink(fc.tuple(validRequestArbitrary(gen, operation), fc.nat()))
      .map(([request, pick]) => pickMutation(mutationsOf(gen, operation, request), pick, invalid))
      .filter((mutation): mutation is Mutation => mutation !== null);
    keep = invalid;
    example = async (value) => {
      const mutation = value as Mutation;
      const result = await send(operation, mutation.request);
      return [{ request: mutation.request, operation, failure: judgeInvalid(ctx, result) }];
    };
  } else if (link) {
    arbitrary = fc.tuple(validRequestArbitrary(gen, operation), validRequestArbitrary(gen, link.target));
    example = async (value) => {
      const [request, generated] = value as [GeneratedRequest, GeneratedRequest];
      const first = await send(operation, request);
      const steps: Step[] = [{ request, operation, failure: judgeValid(ctx, operation.operationId, first) }];
      if (steps[0]!.failure || first.exchange.status >= 300) return steps;
      const next = followLink(link, generated, request, first);
      if (!next) return steps;
      const problems = requestProblems(gen, link.target, next);
      if (problems.length > 0) return [...steps, { request: next, operation: link.target, failure: `the link ${link.name} makes a request the description refuses: ${problems[0]}` }];
      const second = await send(link.target, next);
      return [...steps, { request: next, operation: link.target, failure: judgeValid(ctx, link.target.operationId, second, { operation: operation.operationId, status: first.exchange.status }) }];
    };
  } else {
    arbitrary = validRequestArbitrary(gen, operation);
    example = async (value) => {
      const request = value as GeneratedRequest;
      const result = await send(operation, request);
      return [{ request, operation, failure: judgeValid(ctx, operation.operationId, result) }];
    };
  }

  // Each distinct failure is shrunk on its own: once found, generation goes on past it, so that one
  // fault does not hide another in the same operation.
  const found: Failure[] = [];
  const known = new Set<string>();
  let shrinkingFor: string | undefined;
  let lastFailure: { value: unknown; steps: Step[] } | undefined;
  let shrinkRequests = 0;
  const property = fc.asyncProperty(arbitrary, async (value) => {
    if (halted !== undefined || ctx.deadline.aborted) return true;
    if (shrinkingFor === undefined) examples++;
    // Past the budget every candidate "fails" without a request: fast-check then follows only the
    // first candidate of each level to the end of its shrink tree, instead of generating every
    // remaining sibling (for a long string or array, millions of them) only to see each pass.
    // The failure reported stays the last one a request showed (lastFailure).
    else if (++shrinkRequests > SHRINK_REQUEST_BUDGET) return false;
    options.onProgress?.({ operation: operation.operationId, check, done: examples, total: options.examples, shrinking: shrinkingFor !== undefined });
    let steps: Step[];
    try {
      steps = await example(value);
    } catch (error) {
      if (error instanceof Halt) return true;
      steps = [{ request: {} as GeneratedRequest, operation, failure: `the example could not run: ${(error as Error).message}` }];
    }
    const failure = steps.find((step) => step.failure !== undefined)?.failure;
    if (failure === undefined) return true;
    const kind = signature(failure);
    if (known.has(kind) || (shrinkingFor !== undefined && kind !== shrinkingFor)) return true;
    shrinkingFor = kind;
    lastFailure = { value, steps };
    return false;
  });
  for (let round = 0; examples < options.examples && found.length < MAX_FAILURES_PER_CHECK && !ctx.deadline.aborted; round++) {
    shrinkingFor = undefined;
    lastFailure = undefined;
    shrinkRequests = 0;
    const details = await fc.check(property, { numRuns: options.examples - examples, seed: seed + round, interruptAfterTimeLimit: Math.max(1, ctx.deadlineAt - Date.now()), markInterruptAsFailure: false });
    if (halted !== undefined) throw halted;
    if (details.failed && !lastFailure && !details.interrupted) {
      return { ok: false, reason: `generation failed: ${String(details.errorInstance ?? "too many values refused")}`, examples };
    }
    if (!details.failed || !lastFailure) break;
    const kind = shrinkingFor!;
    known.add(kind);
    found.push(await reduced(lastFailure, kind));
  }
  if (found.length === 0) {
    const how = ctx.deadline.aborted ? `stopped by --max-time after ${examples} of ${options.examples} examples` : `${examples} examples`;
    return { ok: true, reason: `${how} (seed ${options.seed})`, examples };
  }
  const first = found[0]!;
  const more = found.length > 1 ? ` (and ${found.length - 1} more distinct failure${found.length > 2 ? "s" : ""})` : "";
  return { ok: false, reason: `${first.reason}${more}`, examples, failures: found };

  /** fast-check has shrunk the example; a lone request is reduced further, keeping the same failure. */
  async function reduced(failure: { value: unknown; steps: Step[] }, kind: string): Promise<Failure> {
    let failing = failure.steps;
    if (!link && failing.length === 1 && !ctx.deadline.aborted) {
      await reduceRequest(failing[0]!.request, keep, async (candidate) => {
        try {
          const steps = check === "generated-invalid" ? await example({ ...(failure.value as Mutation), request: candidate }) : await example(candidate);
          if (steps[0]!.failure === undefined || signature(steps[0]!.failure) !== kind) return false;
          failing = steps;
          return true;
        } catch (error) {
          if (error instanceof Halt) return false;
          throw error;
        }
      });
      if (halted !== undefined) throw halted;
    }
    const failed = failing.find((step) => step.failure !== undefined) ?? failing.at(-1)!;
    const curl = failing.map((step) => curlOf(ctx, step.operation, step.request));
    return {
      reason: `${failed.failure} -- reduced request: ${JSON.stringify(failed.request)} (seed ${options.seed}, after ${examples} examples)`,
      reproduce: { seed: options.seed, request: failed.request, curl },
    };
  }
}

