import type { CheckResult, Report } from "./run.js";

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

function testcase(service: string, result: CheckResult): string {
  const open = `    <testcase classname="${escapeXml(`${service}.${result.operation}`)}" name="${escapeXml(result.check)}"`;
  if (result.skipped) return `${open}>\n      <skipped message="${escapeXml(result.reason)}"/>\n    </testcase>`;
  if (result.passed) return `${open}/>`;
  // An accepted difference is no failure of the run: it passes, with why it was accepted on record.
  if (result.known !== undefined) return `${open}>\n      <system-out>${escapeXml(`known difference: ${result.known}\n${result.reason}`)}</system-out>\n    </testcase>`;
  const details = [
    result.reason,
    ...(result.failures ?? []).flatMap((failure) => ["", failure.reason, `seed: ${failure.reproduce.seed}`, `request: ${JSON.stringify(failure.reproduce.request)}`, ...failure.reproduce.curl]),
  ].join("\n");
  return `${open}>\n      <failure message="${escapeXml(result.reason)}">${escapeXml(details)}</failure>\n    </testcase>`;
}

/** The report as JUnit XML: one test suite per operation, one test case per check. */
export function junitXml(report: Report): string {
  const suites = Object.entries(report.operations).map(([operation, group]) => {
    const skipped = group.checks.filter((check) => check.skipped).length;
    const cases = group.checks.map((check) => testcase(report.service, check)).join("\n");
    return `  <testsuite name="${escapeXml(`${report.service} ${operation}`)}" tests="${group.checks.length}" failures="${group.failed}" skipped="${skipped}">\n${cases}\n  </testsuite>`;
  });
  const total = report.passed + report.failed + (report.known ?? 0) + (report.skipped ?? 0);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${escapeXml(`contract-test ${report.service}`)}" tests="${total}" failures="${report.failed}">\n${suites.join("\n")}\n</testsuites>\n`;
}
