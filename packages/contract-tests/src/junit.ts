import type { CheckResult, OperationReport, Report } from "./report.js";

/**
 * Text as XML character data or an attribute value: the five special characters escaped, and
 * characters XML 1.0 cannot carry at all (most control characters, lone surrogates, U+FFFE and
 * U+FFFF) replaced by U+FFFD, so that any answer a target sends can be quoted.
 */
export function escapeXml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "\uFFFD")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&apos;");
}

const property = (name: string, value: string) => `<property name="${escapeXml(name)}" value="${escapeXml(value)}"/>`;

/**
 * One check as a JUnit test case. JUnit knows no warnings: a warning passes (GitHub, GitLab and
 * Jenkins count it as passed), carries the property severity=warning (Jenkins shows test case
 * properties) and says WARNING in its output; under --fail-on warning it is a failure of type warning.
 */
function testcase(report: Report, result: CheckResult): string {
  const time = result.durationMs === undefined ? "" : ` time="${(result.durationMs / 1000).toFixed(3)}"`;
  const open = `    <testcase classname="${escapeXml(`${report.service}.${result.operation}`)}" name="${escapeXml(result.check)}"${time}`;
  if (result.skipped) return `${open}>\n      <skipped message="${escapeXml(result.reason)}"/>\n    </testcase>`;
  if (result.passed) return `${open}/>`;
  const severity = `      <properties>${property("severity", result.severity ?? "failure")}</properties>\n`;
  // An accepted difference is no failure of the run: it passes, with why it was accepted on record.
  if (result.known !== undefined) return `${open}>\n${severity}      <system-out>${escapeXml(`known difference: ${result.known}\n${result.reason}`)}</system-out>\n    </testcase>`;
  const warning = result.severity === "warning";
  const evidence = result.evidence ?? [];
  if (warning && report.failOn !== "warning") return `${open}>\n${severity}      <system-out>${escapeXml([`WARNING: ${result.reason}`, ...evidence].join("\n"))}</system-out>\n    </testcase>`;
  const details = [
    result.reason,
    ...evidence,
    ...(result.failures ?? []).flatMap((failure) => ["", failure.reason, `seed: ${failure.reproduce.seed}`, `request: ${JSON.stringify(failure.reproduce.request)}`, ...failure.reproduce.curl]),
  ].join("\n");
  return `${open}>\n${severity}      <failure${warning ? ' type="warning"' : ""} message="${escapeXml(result.reason)}">${escapeXml(details)}</failure>\n    </testcase>`;
}

/** An operation's coverage as test suite properties: statuses seen and not, members sent and not. */
function coverageProperties(report: Report, operation: string): string {
  const op = report.coverage.operations[operation];
  if (!op) return "";
  const list = (names: string[]) => names.join(" ");
  const properties = [
    property("coverage.exchanges", String(op.exchanges)),
    property("coverage.statuses.seen", list(op.statuses.seen)),
    property("coverage.statuses.not-seen", list(op.statuses.notSeen)),
    ...(op.statuses.undocumented.length > 0 ? [property("coverage.statuses.undocumented", list(op.statuses.undocumented))] : []),
    property("coverage.members.sent", list(op.members.sent)),
    property("coverage.members.not-sent", list(op.members.notSent)),
  ];
  return `    <properties>\n${properties.map((line) => `      ${line}`).join("\n")}\n    </properties>\n`;
}

/** The report as JUnit XML: one test suite per operation (its coverage as properties), one test case per check. */
export function junitXml(report: Report): string {
  const failing = (group: OperationReport) => group.failed + (report.failOn === "warning" ? (group.warnings ?? 0) : 0);
  const suites = Object.entries(report.operations).map(([operation, group]) => {
    const skipped = group.checks.filter((check) => check.skipped).length;
    const cases = group.checks.map((check) => testcase(report, check)).join("\n");
    return `  <testsuite name="${escapeXml(`${report.service} ${operation}`)}" tests="${group.checks.length}" failures="${failing(group)}" skipped="${skipped}">\n${coverageProperties(report, operation)}${cases}\n  </testsuite>`;
  });
  const total = report.passed + report.failed + (report.warnings ?? 0) + (report.known ?? 0) + (report.skipped ?? 0);
  const failures = report.failed + (report.failOn === "warning" ? (report.warnings ?? 0) : 0);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${escapeXml(`contract-test ${report.service}`)}" tests="${total}" failures="${failures}">\n${suites.join("\n")}\n</testsuites>\n`;
}
