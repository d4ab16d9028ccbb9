import { curlCommand, fillPath, queryString, type ApiContract, type CoverageRecorder, type ErrorReply } from "@api-contracts/contract-core";
import type { Caller, CallResult, ClientFactory } from "../http.js";
import type { Contract } from "../judge.js";
import type { Fixtures } from "../fixtures.js";
import type { WireTarget } from "../probes/wire.js";
import type { GeneratedRequest } from "../generate/arbitraries.js";

/**
 * `schema` and `behavior` speak through the generated clients; `http` sends raw bytes; `webhooks`
 * starts jobs whose webhook calls the kit's receiver (behaviour level runs both too).
 */
export const LEVELS = ["schema", "behavior", "http", "webhooks"] as const;
export type Level = (typeof LEVELS)[number];

/**
 * A failure: a client that follows the contract is, or could be, harmed (exit 1). A warning:
 * hygiene no conforming client can see or be harmed by (reported; exit 0 unless --fail-on warning).
 */
export const SEVERITIES = ["failure", "warning"] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface Outcome {
  ok: boolean;
  reason: string;
  /** How much a miss matters; a miss without one is a failure. */
  severity?: Severity;
  /** The target stopped answering after this check: the checks after it cannot run. */
  targetGone?: boolean;
  /** Not run, for the reason given (nothing to judge it with): reported SKIP. */
  skipped?: boolean;
  /** How to see a miss again: the requests that caused it (as curl) and what came back. */
  evidence?: string[];
  /** Examples a generated check tried (shrinking not counted). */
  examples?: number;
  /** Every distinct failure a generated check found, the first one first, each with its reduced request. */
  failures?: Failure[];
}

/** How to send a failing generated request again. */
export interface Reproduction {
  seed: number;
  /** The reduced request (for a linked sequence, the last one). */
  request: GeneratedRequest;
  /** `curl` commands, one per request of the sequence; the key is `$API_KEY`. */
  curl: string[];
}

/** One distinct failure of a generated check, with its reduced request. */
export interface Failure {
  reason: string;
  reproduce: Reproduction;
}

export interface CheckContext {
  caller: Caller;
  contract: Contract;
  level: Level;
  fixtures: Fixtures | undefined;
  /** Where raw requests go (the probes of the http level). */
  wire: WireTarget;
  /** What the run exercised; checks that send without the client (the probes) count their answers here. */
  coverage?: CoverageRecorder;
  /** Aborts when the run's deadline passes; `deadlineAt` is when, in epoch milliseconds (generation stops then). */
  deadline: AbortSignal;
  deadlineAt: number;
  /** The base URL as reproductions may print it. */
  shownBaseUrl: string;
  /** Headers sent with every request (`--header`), which reproductions carry too. */
  headers: Record<string, string>;
}

/**
 * One entry of the kit's registry of checks: what it checks, of which operation, at which level.
 * `name` is stable within its operation: reports and tests refer to it.
 */
export interface Check {
  /** The operationId of the contract the check applies to; its result is reported under it. */
  operation: string;
  name: string;
  /** The lowest level that runs the check: schema checks run at both client levels; behaviour runs every check. */
  level: Level;
  /** Mostly waits on the server (a stalled body): such checks run together, not one after another. */
  waits?: boolean;
  /** Made from the description (`--generate`): runs after the others, and is skipped, not the run ended, once the deadline passes. */
  generated?: boolean;
  /** What is checked, in words. */
  what: string;
  run(ctx: CheckContext): Promise<Outcome>;
}

/** Real values for members and parameters, by name (ids from the fixtures). */
export type Hints = Record<string, string[]>;

/**
 * What the kit knows of one API beyond its description and its facts: the typed client it speaks
 * through, its own checks, the real values its fixtures give, and how to tell that the target holds
 * them. An API without any of it gets the kit's generic checks alone.
 */
export interface KitApi {
  /** The API's name in contract-core's registry. */
  name: string;
  client?: ClientFactory;
  checks?(contract: Contract): Check[];
  hints?(fixtures: Fixtures | undefined): Hints;
  /**
   * Run before the checks at the levels that use the fixtures: why the target cannot serve the
   * checks of these operations (an id of the fixtures it does not hold), or undefined.
   */
  preflight?(ctx: CheckContext, operations: ReadonlySet<string>): Promise<string | undefined>;
}

export const pass = (reason: string): Outcome => ({ ok: true, reason });
export const fail = (reason: string): Outcome => ({ ok: false, reason });
export const warn = (reason: string): Outcome => ({ ok: false, reason, severity: "warning" });
export const skip = (reason: string): Outcome => ({ ok: false, reason, skipped: true });

import { CheckFailure } from "./failure.js";

export { CheckFailure };

/**
 * The answer must have one of the expected statuses and match the contract for it. An
 * undocumented status is reported as such before the mismatch with the expectation.
 */
export function expectAnswer(result: CallResult, expected: number | number[] | "2xx"): Outcome {
  const { exchange, verdict } = result;
  const status = exchange.status;
  if (!verdict.ok && /is not documented for|is not an operation/.test(verdict.reason)) return fail(verdict.reason);
  const matches = expected === "2xx" ? status >= 200 && status < 300 : ([] as number[]).concat(expected).includes(status);
  if (!matches) {
    const want = expected === "2xx" ? "a 2xx status" : ([] as number[]).concat(expected).join(" or ");
    return fail(`expected ${want}, got ${status}: ${snippet(exchange.bodyText)}`);
  }
  return verdict.ok ? pass(verdict.reason) : fail(verdict.reason);
}

/** Refusals a conforming client acts on alike (fix the request; check the credentials; the thing is not there). */
const HANDLED_ALIKE: readonly (readonly number[])[] = [
  [400, 422],
  [401, 403],
  [404, 410],
];

/**
 * How an answer misses the refusal the API's decision expects; undefined when it gives it. A client
 * that follows the contract acts on the status (fix the request, retry later, treat the request as
 * already done on a 409, re-authenticate, shrink the body) and on the error code where the API has
 * one: another status it acts on alike is no harm, any other status or another code is.
 */
export function refusalMiss(contract: ApiContract, expected: ErrorReply, answer: { status: number; body: unknown }): string | undefined {
  const alike = answer.status === expected.status || HANDLED_ALIKE.some((group) => group.includes(answer.status) && group.includes(expected.status));
  if (!alike) return `expected ${expected.status}, got ${answer.status}`;
  const [code, given] = [contract.codeOf(expected.body), contract.codeOf(answer.body)];
  return code !== undefined && given !== code ? `expected code ${code}, got ${JSON.stringify(given ?? null)}` : undefined;
}

/**
 * The answer must be the one the API's decision gives the request as it was sent: its refusal (the
 * status, and the code where the API's error body carries one) with the documented body, or, for a
 * request the API serves, a documented 2xx.
 */
export function expectDecided(ctx: Pick<CheckContext, "caller" | "contract">, result: CallResult): Outcome {
  const expected = ctx.caller.refusalFor(result.request);
  if (!expected) return expectAnswer(result, "2xx");
  const { verdict, exchange } = result;
  // What the answer breaks comes first, unless it is another status than the refusal's: then that is the news.
  if (!verdict.ok && (exchange.status === expected.status || /is not documented for|is not an operation/.test(verdict.reason))) return fail(verdict.reason);
  const miss = refusalMiss(ctx.contract.core, expected, { status: exchange.status, body: result.body });
  if (miss) return fail(`${miss}: ${snippet(exchange.bodyText)}`);
  return verdict.ok ? pass(verdict.reason) : fail(verdict.reason);
}

/** A `curl` command that sends a request again, with the run's headers; the key is `$API_KEY`. */
export function curlOf(ctx: Pick<CheckContext, "shownBaseUrl" | "headers">, operation: { method: string; path: string }, request: Omit<GeneratedRequest, "body"> & { body?: unknown }): string {
  const body = request.body === undefined ? {} : { body: JSON.stringify(request.body) };
  const headers = { ...ctx.headers, ...request.headers, ...(request.body === undefined ? {} : { "Content-Type": "application/json" }) };
  const url = `${ctx.shownBaseUrl}${fillPath(operation.path, request.path)}${queryString(request.query)}`;
  return curlCommand({ method: operation.method, url, headers, ...body }, { keyVariable: "API_KEY", quiet: true });
}

/** Like `expectAnswer`, but stops the check with a failure, and hands back the parsed body. */
export function requireAnswer(result: CallResult, expected: number | number[] | "2xx", step: string): Record<string, unknown> {
  const outcome = expectAnswer(result, expected);
  if (!outcome.ok) throw new CheckFailure(`${step}: ${outcome.reason}`);
  const body = result.body;
  return typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

export function snippet(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "") return "(empty body)";
  return flat.length > max ? `${flat.slice(0, max)}...` : flat;
}
