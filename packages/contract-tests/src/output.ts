// What a terminal shows of a run: one line per check, the closing lines and the totals.
import { counted, formatCoverage, truncate } from "@api-contracts/contract-core";
import type { KnownDifference } from "./known-differences.js";
import type { CheckResult, Report } from "./report.js";

/** Longest reason a terminal is shown on a result line; the JSON report (--report) keeps it whole. */
export const REASON_LIMIT = 400;

/** One line per check: status, operation and check name, what was checked, and why it passed or failed. */
export function formatResult(result: CheckResult): string {
  const status = result.skipped ? "SKIP" : result.passed ? "PASS" : result.known !== undefined ? "KNOWN" : result.severity === "warning" ? "WARN" : "FAIL";
  const accepted = result.known !== undefined ? ` (known difference: ${result.known})` : "";
  const line = `${status} ${result.operation} ${result.check}: ${result.what} -- ${truncate(result.reason, REASON_LIMIT)}${accepted}`;
  if (result.evidence) return [line, ...result.evidence.map((evidence) => `     ${evidence}`)].join("\n");
  if (!result.failures) return line;
  const details = result.failures.flatMap((failure, i) => [...(i > 0 ? [`     also: ${truncate(failure.reason, REASON_LIMIT)}`] : []), `     seed: ${failure.reproduce.seed}`, ...failure.reproduce.curl.map((curl) => `     ${curl}`)]);
  return [line, ...details].join("\n");
}

/** The totals line: `72 passed, 0 failed, 1 warning, 1 skipped`, each count after the failures shown when not 0. */
export function formatSummary(report: Pick<Report, "passed" | "failed" | "warnings" | "known" | "skipped">): string {
  const optional = [report.warnings ? counted(report.warnings, "warning") : "", report.known ? `${report.known} known` : "", report.skipped ? `${report.skipped} skipped` : ""];
  return [`${report.passed} passed`, `${report.failed} failed`, ...optional.filter(Boolean)].join(", ");
}

/**
 * The lines a terminal shows after the checks, before the totals: the coverage, how the run was
 * narrowed or extended, and what fails the run when warnings do.
 */
export function formatClosing(report: Report): string[] {
  const lines = formatCoverage(report.coverage);
  const narrowed = [report.include && `--include ${report.include.join(",")}`, report.exclude && `--exclude ${report.exclude.join(",")}`].filter(Boolean);
  if (narrowed.length > 0) lines.push(`operations: ${Object.keys(report.operations).length} checked (${narrowed.join(", ")})`);
  if (report.headers) lines.push(`headers added to every request: ${report.headers.join(", ")}`);
  const warnings = report.warnings ?? 0;
  if (report.failOn === "warning" && warnings > 0) lines.push(`${counted(warnings, "warning")} ${warnings === 1 ? "fails" : "fail"} this run (--fail-on warning)`);
  return lines;
}

/** One line per accepted difference that no failure matched this run. */
export function formatStale(entry: KnownDifference): string {
  return `STALE ${entry.operation} ${entry.check}: no failure contains "${entry.reason}" any more; the entry (${entry.why}) can go`;
}
