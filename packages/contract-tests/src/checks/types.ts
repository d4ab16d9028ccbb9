import type { CoverageRecorder } from "@api-contracts/contract-core";
import type { Caller, CallResult, ClientFactory } from "../http.js";
import type { Contract } from "../judge.js";
import type { Fixtures } from "../fixtures.js";
import type { WireTarget } from "../probes/wire.js";
import type { GeneratedRequest } from "../generate/arbitraries.js";
import type { GenerationProfile } from "../generate/profiles.js";

/**
 * `schema` and `behavior` speak through the generated clients; `http` sends raw bytes; `webhooks`
 * starts jobs whose webhook calls the kit's receiver (behaviour level runs both too).
 */
export type Level = "schema" | "behavior" | "http" | "webhooks";

/**
 * A failure: a client that follows the contract is, or could be, harmed (exit 1). A warning:
 * hygiene no conforming client can see or be harmed by (reported; exit 0 unless --fail-on warning).
 */
export type Severity = "failure" | "warning";
export const SEVERITIES: readonly Severity[] = ["failure", "warning"];

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

/** What the kit knows of one API beyond its description: the client it speaks through, its own checks, and how generation fills and reads its requests. */
export interface KitApi {
  client: ClientFactory;
  checks(contract: Contract): Check[];
  generation: GenerationProfile;
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
