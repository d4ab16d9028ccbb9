import fc from "fast-check";
import { isObject, OpenApiValidators, resolvePointer, type WalkedOperation } from "@api-contracts/contract-core";
import { UnreachableError, type CallResult } from "../http.js";
import type { Contract, Service } from "../judge.js";
import type { CheckContext, Outcome } from "../checks/types.js";
import { snippet } from "../checks/types.js";
import { requestProblems, validRequestArbitrary, type GeneratedRequest, type GeneratorContext } from "./arbitraries.js";
import { curlCommand } from "./curl.js";
import { mutationsOf, type Mutation } from "./mutations.js";
import { PROFILES, type Answer, type LinkSource } from "./profiles.js";
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

/** How to send a failing request again. */
export interface Reproduction {
  seed: number;
  /** The reduced request (for a linked sequence, the last one). */
  request: GeneratedRequest;
  /** `curl` commands, one per request of the sequence; the key is `$API_KEY`. */
  curl: string[];
}

export interface GeneratedOutcome extends Outcome {
  /** Examples tried (shrinking not counted). */
  examples: number;
  /** The run's deadline passed: generation stopped early. */
  stopped: boolean;
  reproduce?: Reproduction;
}

export interface GeneratedCheck {
  operation: string;
  name: string;
  what: string;
  run(ctx: CheckContext & { deadline: AbortSignal; shownBaseUrl: string }): Promise<GeneratedOutcome>;
}

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

function answerOf(result: CallResult): Answer {
  return { status: result.exchange.status, body: result.body };
}

/** Judges the answer to a request the description accepts; undefined when it passes. */
function judgeValid(service: Service, ctx: CheckContext, operation: string, request: GeneratedRequest, result: CallResult, source?: LinkSource): string | undefined {
  const { status, bodyText } = result.exchange;
  if (status >= 500) return `a valid request got ${status}: ${snippet(bodyText)}`;
  if (!result.verdict.ok) return result.verdict.reason;
  if (status === 400 && !PROFILES[service].stateRefusal?.(operation, request, answerOf(result), ctx.fixtures, source)) {
    return `a request the description accepts was refused as invalid (400): ${snippet(bodyText)}`;
  }
  if (source && source.answer.status < 300 && status === 404) return `the value ${source.operation}'s answer links to names nothing (404): ${snippet(bodyText)}`;
  return undefined;
}

/** Judges the answer to a request that breaks one constraint; undefined when it was refused as documented. */
function judgeInvalid(mutation: Mutation, problems: string[], result: CallResult): string | undefined {
  const { status, bodyText } = result.exchange;
  const broke = `${mutation.kind} broken at ${mutation.where} (${problems[0] ?? "invalid"})`;
  if (status < 400 || status >= 500 || status === 401) return `${broke}: expected a documented 4xx refusal, got ${status}: ${snippet(bodyText)}`;
  if (!result.verdict.ok) return `${broke}: ${result.verdict.reason}`;
  return undefined;
}

/** A runtime expression of a link (`$request.body#/lock/lock_id`, `$response.body#/id`), or a constant. */
function evaluate(expression: unknown, request: GeneratedRequest, answer: Answer): unknown {
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
      const target = isObject(link) ? operations.find((op) => op.operationId === link.operationId) : undefined;
      if (!target || !isObject(link)) continue;
      found.push({ name, target, parameters: isObject(link.parameters) ? link.parameters : {}, ...(link.requestBody !== undefined ? { requestBody: link.requestBody } : {}) });
    }
  }
  return found;
}

/** The request a link makes from an example: the generated one, with the linked values put in. */
function followLink(link: Link, generated: GeneratedRequest, request: GeneratedRequest, answer: Answer): GeneratedRequest | undefined {
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
 * The generated checks of a service: for every operation, valid requests made from its schemas
 * (`generated-valid`), requests that break one constraint (`generated-invalid`), and, for every
 * OpenAPI link, sequences that feed one answer into the linked request (`generated-link-<name>`).
 */
export function generatedChecks(service: Service, contract: Contract, options: GenerationOptions): GeneratedCheck[] {
  const checks: GeneratedCheck[] = [];
  const validators = new OpenApiValidators(contract.doc);
  const operations = validators.walkedOperations();
  for (const operation of operations) {
    const hasInput = operation.parameters.some((p) => p.in !== "cookie") || operation.requestBody !== undefined;
    checks.push({ operation: operation.operationId, name: "generated-valid", what: `${options.examples} requests made from the description are answered as documented, never 5xx, never refused as invalid`, run: (ctx) => runProperty(service, ctx, validators, operation, "generated-valid", options) });
    if (hasInput) {
      checks.push({ operation: operation.operationId, name: "generated-invalid", what: `${options.examples} requests that each break one constraint are refused with a documented 4xx`, run: (ctx) => runProperty(service, ctx, validators, operation, "generated-invalid", options) });
    }
    for (const link of linksOf(operation, operations)) {
      checks.push({
        operation: operation.operationId,
        name: `generated-link-${link.name}`,
        what: `${options.examples} sequences: a valid ${operation.operationId}, then ${link.target.operationId} with the values its link names`,
        run: (ctx) => runProperty(service, ctx, validators, operation, `generated-link-${link.name}`, options, link),
      });
    }
  }
  return checks;
}

async function runProperty(
  service: Service,
  ctx: CheckContext & { deadline: AbortSignal; shownBaseUrl: string },
  validators: OpenApiValidators,
  operation: WalkedOperation,
  check: string,
  options: GenerationOptions,
  link?: Link,
): Promise<GeneratedOutcome> {
  const gen: GeneratorContext = {
    document: ctx.contract.doc,
    validators,
    now: Date.now,
    hints: (() => {
      const hints = PROFILES[service].hints(ctx.fixtures);
      return (name: string) => hints[name];
    })(),
  };
  const seed = seedFor(options.seed, operation.operationId, check);
  const valid = (request: GeneratedRequest, op = operation) => requestProblems(gen, op, request).length === 0;
  let halted: unknown;
  let examples = 0;
  let shrinking = false;

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
  let keep: (request: GeneratedRequest) => boolean;
  if (check === "generated-invalid") {
    const invalid = (request: GeneratedRequest) => !valid(request);
    arbitrary = fc
      .tuple(validRequestArbitrary(gen, operation), fc.nat())
      .map(([request, pick]) => {
        const mutations = mutationsOf(gen, operation, request, invalid);
        return mutations.length > 0 ? mutations[pick % mutations.length]! : null;
      })
      .filter((mutation): mutation is Mutation => mutation !== null);
    keep = invalid;
    example = async (value) => {
      const mutation = value as Mutation;
      const result = await send(operation, mutation.request);
      return [{ request: mutation.request, operation, failure: judgeInvalid(mutation, requestProblems(gen, operation, mutation.request), result) }];
    };
  } else if (link) {
    arbitrary = fc.tuple(validRequestArbitrary(gen, operation), validRequestArbitrary(gen, link.target));
    keep = (request) => valid(request);
    example = async (value) => {
      const [request, generated] = value as [GeneratedRequest, GeneratedRequest];
      const first = await send(operation, request);
      const steps: Step[] = [{ request, operation, failure: judgeValid(service, ctx, operation.operationId, request, first) }];
      if (steps[0]!.failure || first.exchange.status >= 300) return steps;
      const next = followLink(link, generated, request, answerOf(first));
      if (!next) return steps;
      const problems = requestProblems(gen, link.target, next);
      if (problems.length > 0) return [...steps, { request: next, operation: link.target, failure: `the link ${link.name} makes a request the description refuses: ${problems[0]}` }];
      const second = await send(link.target, next);
      const source: LinkSource = { operation: operation.operationId, answer: answerOf(first) };
      return [...steps, { request: next, operation: link.target, failure: judgeValid(service, ctx, link.target.operationId, next, second, source) }];
    };
  } else {
    arbitrary = validRequestArbitrary(gen, operation);
    keep = (request) => valid(request);
    example = async (value) => {
      const request = value as GeneratedRequest;
      const result = await send(operation, request);
      return [{ request, operation, failure: judgeValid(service, ctx, operation.operationId, request, result) }];
    };
  }

  let lastFailure: { value: unknown; steps: Step[] } | undefined;
  const property = fc.asyncProperty(arbitrary, async (value) => {
    if (halted !== undefined || ctx.deadline.aborted) return true;
    if (!shrinking) examples++;
    options.onProgress?.({ operation: operation.operationId, check, done: examples, total: options.examples, shrinking });
    let steps: Step[];
    try {
      steps = await example(value);
    } catch (error) {
      if (error instanceof Halt) return true;
      steps = [{ request: {} as GeneratedRequest, operation, failure: `the example could not run: ${(error as Error).message}` }];
    }
    if (steps.every((step) => step.failure === undefined)) return true;
    lastFailure = { value, steps };
    shrinking = true;
    return false;
  });
  const details = await fc.check(property, { numRuns: options.examples, seed, markInterruptAsFailure: false });
  if (halted !== undefined) throw halted;
  const stopped = ctx.deadline.aborted;

  if (!details.failed || !lastFailure) {
    const how = stopped ? `stopped by --max-time after ${examples} of ${options.examples} examples` : `${examples} examples`;
    if (details.failed && details.errorInstance) return { ok: false, reason: `generation failed: ${String(details.errorInstance)}`, examples, stopped };
    return { ok: true, reason: `${how} (seed ${options.seed})`, examples, stopped };
  }

  // fast-check has shrunk the example; the last request of the failing sequence is reduced further.
  let failing = lastFailure.steps;
  const last = failing.at(-1)!;
  if (!link && failing.length === 1 && !ctx.deadline.aborted) {
    await reduceRequest(last.request, keep, async (candidate) => {
      try {
        const steps = check === "generated-invalid"
          ? await example({ ...(lastFailure!.value as Mutation), request: candidate })
          : await example(candidate);
        if (steps[0]!.failure === undefined) return false;
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
  const curl = failing.map((step) => curlCommand(ctx.shownBaseUrl, step.operation.method, step.operation.path, step.request));
  const request = failed.request;
  return {
    ok: false,
    reason: `${failed.failure} -- reduced request: ${JSON.stringify(request)} (seed ${options.seed}, after ${examples} examples)`,
    examples,
    stopped,
    reproduce: { seed: options.seed, request, curl },
  };
}
