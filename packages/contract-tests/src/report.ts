// What a run reports: each check's result, grouped by operation, with the totals, the coverage and any hint.
import type { Coverage } from "@api-contracts/contract-core";
import type { Service } from "./checks/registry.js";
import type { Failure, Level, Reproduction, Severity } from "./checks/types.js";
import type { KnownDifference } from "./known-differences.js";

/** The limits a run applies, as stated in its report. */
export interface RunLimits {
  timeoutMs: number;
  maxTimeMs: number;
  maxAnswerBytes: number;
}

export interface CheckResult {
  operation: string;
  /** Stable name of the check within its operation, e.g. `auth-missing`. */
  check: string;
  what: string;
  level: Level;
  passed: boolean;
  reason: string;
  /** How much a check that did not pass matters: a `failure` harms clients, a `warning` is hygiene. */
  severity?: Severity;
  /** Not run: generation stopped at the run's deadline before reaching it, or the target stopped answering. */
  skipped?: boolean;
  /** How long the check took, in milliseconds (absent when it was not run). */
  durationMs?: number;
  /** Examples a generated check tried. */
  examples?: number;
  /** How to repeat a failed generated check: seed, reduced request, curl. */
  reproduce?: Reproduction;
  /** Every distinct failure of a generated check, each with its reduced request. */
  failures?: Failure[];
  /** A failure or warning the implementer has accepted (--known-differences): why it is accepted. It does not fail the run. */
  known?: string;
  /** How to see a miss again: the requests that caused it (as curl) and what came back (the webhook stage's calls). */
  evidence?: string[];
}

export interface OperationReport {
  passed: number;
  failed: number;
  warnings?: number;
  /** Failures and warnings an accepted known difference explains. */
  known?: number;
  checks: CheckResult[];
}

export interface Report {
  service: Service;
  /** The target, with any password in the URL masked. */
  baseUrl: string;
  level: Level;
  limits: RunLimits;
  passed: number;
  /** Checks that failed: a client that follows the contract is, or could be, harmed. */
  failed: number;
  /** Checks that ended in a warning: hygiene, reported; they fail the run only with `failOn: "warning"`. */
  warnings?: number;
  /** The least severity that fails the run. */
  failOn: Severity;
  /** The operationIds and tags the run was narrowed to (`--include`), and those it left out (`--exclude`). */
  include?: string[];
  exclude?: string[];
  /** Names of the headers added to every request (`--header`). */
  headers?: string[];
  /** Checks not run: the deadline passed, or the target stopped answering. */
  skipped?: number;
  /** Failures and warnings an accepted known difference explains; they do not count as failed or warnings. */
  known?: number;
  /** Accepted known differences that no failure matched this run: the difference is gone. */
  stale?: KnownDifference[];
  /** Examples per generated check, and the seed that repeats them; absent without generation. */
  generation?: { examples: number; seed: number; stopped: boolean; summary: string };
  /** Results grouped by operationId, in the order the operations were first checked. */
  operations: Record<string, OperationReport>;
  /** What the run exercised: per operation, the documented statuses seen and the request members sent. */
  coverage: Coverage;
}

/** Whether a report fails its run: a failure, or a warning when warnings fail it. */
export function runFailed(report: Pick<Report, "failed" | "warnings" | "failOn">): boolean {
  return report.failed > 0 || (report.failOn === "warning" && (report.warnings ?? 0) > 0);
}
