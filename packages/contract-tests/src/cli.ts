import { writeFileSync } from "node:fs";
import { DEFAULT_LIMITS, UnreachableError } from "./http.js";
import { UsageError } from "./fixtures.js";
import { runContractTests } from "./run.js";
import { DEFAULT_MAX_TIME_MS, randomSeed, readSettings } from "./options.js";
import { services } from "./checks/registry.js";
import { formatClosing, formatResult, formatStale, formatSummary } from "./output.js";
import { runFailed } from "./report.js";
import { junitXml } from "./junit.js";
import { init, readFlags, type CommandIo } from "./init.js";
import { DEFAULT_WEBHOOK_DEADLINE_MS } from "./webhooks/stage.js";
import { redactor } from "@api-contracts/contract-core";
import { onStopRequest, type StopCause } from "@api-contracts/contract-core/server";
import { maskUrl } from "./secrets.js";
import { LEVELS, type Level } from "./checks/types.js";

/** The usage text, naming the APIs of the registry (those of CONTRACT_API_DIRS included). */
export const usage = (): string => `Usage: contract-test --service <${services().join("|")}> --base-url <URL> [--api-key <KEY>]
                     [--fixtures <FILE.json>] [--level <schema|behavior|http|webhooks>] [--report <FILE.json>]
                     [--include <OPERATION|TAG>]... [--exclude <OPERATION|TAG>]... [--header <NAME: VALUE>]...
                     [--timeout <MS>] [--max-time <MS>] [--max-answer-bytes <BYTES>]
                     [--generate <N>] [--seed <S>] [--junit <FILE.xml>]
                     [--known-differences <FILE.json>] [--fail-on <failure|warning>]
                     [--webhook-secret <SECRET>] [--webhook-receiver <HOST:PORT>]
                     [--webhook-url <URL>] [--webhook-deadline <MS>]
       contract-test init --service <${services().join("|")}> [--out <FILE.json>] [--force]

  --level             schema (default): every operation through the generated clients;
                      behavior: also the stateful rules (needs --fixtures), the HTTP probes and
                      the webhook stage; http: only the HTTP probes, raw requests fetch will not
                      send (control bytes, a broken request line, conflicting framing, huge
                      headers or bodies, a stall); webhooks: only the webhook stage, jobs started
                      with a webhook to the kit's receiver, every call judged
  --webhook-secret    the secret the target signs its webhook calls with (signatures are not
                      judged without it)
  --webhook-receiver  host:port the kit's receiver listens on, which the target must reach
                      (default 127.0.0.1 and a free port, for a target on this machine; another
                      target skips the webhook stage without it)
  --webhook-url       base URL the target calls to reach the receiver, when it is another name
                      (a tunnel, host.docker.internal)
  --webhook-deadline  longest wait for a job's last webhook call (default ${DEFAULT_WEBHOOK_DEADLINE_MS} ms)
  --include           only the operations with this operationId or tag (repeatable, or comma-separated)
  --exclude           not the operations with this operationId or tag (repeatable, or comma-separated)
  --header            also send this header with every request, e.g. a gateway's tenant or trace
                      header (repeatable); not Authorization (--api-key), Host, Content-Type or framing
  --generate          also send N generated requests per check: valid ones, ones that break one
                      constraint, and sequences that follow the description's links
  --seed              seed of the generated requests (default random; printed, so a run can be repeated)
  --junit             also write the results as JUnit XML, one test case per check
  --known-differences failures and warnings you have accepted: a JSON array of {operation, check,
                      reason, why}; a failure or warning of that check whose reason contains
                      \`reason\` is reported KNOWN and does not fail the run; an entry that matched
                      nothing is reported STALE
  --fail-on           failure (default): only failures fail the run, where a client that follows
                      the contract is or could be harmed; warning: warnings fail it too (HTTP
                      hygiene such as a parser's bare 400, 431 or 505, or no 408 within --timeout)
  --report            also write the results as JSON, with the coverage and any hint
  --timeout           longest wait for one answer, headers and body (default ${DEFAULT_LIMITS.timeoutMs} ms);
                      a target that does not answer in time counts as unreachable
  --max-time          longest whole run (default ${DEFAULT_MAX_TIME_MS} ms); past it, unreachable
  --max-answer-bytes  most bytes read of one answer (default ${DEFAULT_LIMITS.maxAnswerBytes}); a longer one fails its check

Before the checks the kit asks the target a few questions: does it answer as the API, does it take
the key, does it hold the fixtures' ids; a no ends the run with one message (exit 2). Each check
ends PASS, FAIL, WARN (reported; fails the run only with --fail-on warning), KNOWN or SKIP; after
them come the coverage (documented statuses seen, request members sent) and the totals.

Options may also come from CONTRACT_SERVICE, CONTRACT_BASE_URL, CONTRACT_API_KEY,
CONTRACT_FIXTURES, CONTRACT_LEVEL, CONTRACT_TIMEOUT, CONTRACT_MAX_TIME,
CONTRACT_MAX_ANSWER_BYTES, CONTRACT_GENERATE, CONTRACT_SEED, CONTRACT_FAIL_ON,
CONTRACT_KNOWN_DIFFERENCES, CONTRACT_WEBHOOK_SECRET, CONTRACT_WEBHOOK_RECEIVER,
CONTRACT_WEBHOOK_URL, CONTRACT_WEBHOOK_DEADLINE, CONTRACT_INCLUDE and CONTRACT_EXCLUDE
(comma-separated) and CONTRACT_HEADERS (one header a line); a flag wins over its variable. The API
key, the webhook secret and any password in the base URL are never printed or written.
Exit status: 0 no check failed (warnings allowed unless --fail-on warning), 1 a check failed,
2 bad arguments, an unreachable server, or a target the kit stopped before the checks, 130 or 143
stopped by SIGINT or SIGTERM (or by the end of the npm or npx that started it) before the end, with
what ran reported.`;

export interface CliIo extends CommandIo {
  /** Redraws one progress line; absent when the output is not a terminal. */
  progress?: (line: string) => void;
}

const defaultIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  // \r and erase-line redraw the same line; "" clears it before the next result is printed.
  ...(process.stderr.isTTY ? { progress: (line: string) => process.stderr.write(`\r\u001b[K${line}`) } : {}),
};

/** The flags of a run, each taking a value; the last three may be given more than once. */
const FLAGS = [
  "service", "base-url", "api-key", "fixtures", "level", "report", "timeout", "max-time", "max-answer-bytes", "generate", "seed", "junit",
  "known-differences", "fail-on", "webhook-secret", "webhook-receiver", "webhook-url", "webhook-deadline", "include", "exclude", "header",
];
const REPEATABLE = new Set(["include", "exclude", "header"]);

/** Runs the command line and resolves to its exit code. */
export async function main(argv: string[], io: CliIo = defaultIo): Promise<number> {
  if (argv[0] === "init") return init(argv.slice(1), io);
  const flags = Object.fromEntries(FLAGS.map((flag) => [flag, { type: "string" as const, multiple: REPEATABLE.has(flag) }]));
  const USAGE = usage();
  const values = readFlags(argv, flags, "contract-test", USAGE, io);
  if (typeof values === "number") return values;
  // A repeated flag's values one a line, as its variable holds them.
  const given = (flag: string) => (Array.isArray(values[flag]) ? (values[flag] as string[]).join("\n") : (values[flag] as string | undefined));
  const pick = (flag: string, variable: string): string | undefined => given(flag) ?? (io.env[variable] || undefined);
  const service = pick("service", "CONTRACT_SERVICE");
  const baseUrl = pick("base-url", "CONTRACT_BASE_URL");
  const level = pick("level", "CONTRACT_LEVEL") ?? "schema";
  const problems: string[] = [];
  if (!service) problems.push("--service is required");
  else if (!services().includes(service)) problems.push(`--service must be one of ${services().join(", ")} (got "${service}")`);
  if (!baseUrl) problems.push("--base-url is required");
  if (!LEVELS.includes(level as Level)) problems.push(`--level must be one of ${LEVELS.join(", ")} (got "${level}")`);
  if (problems.length) {
    io.err(`contract-test: ${problems.join("; ")}\n${USAGE}`);
    return 2;
  }

  const apiKey = pick("api-key", "CONTRACT_API_KEY");
  // Ctrl+C, SIGTERM or the end of npm ends the run early: the report of what ran is still written.
  const stopping = new AbortController();
  const cancelStop = onStopRequest((cause) => stopping.abort(cause));
  try {
    const settings = readSettings(pick, (flag) => `--${flag}`);
    const seed = settings.seed ?? (settings.generate === undefined ? undefined : randomSeed());
    if (settings.generate !== undefined) io.out(`seed ${seed} (--seed ${seed} repeats this run's generated requests)`);
    let progressShown = false;
    const report = await runContractTests({
      ...settings,
      signal: stopping.signal,
      service: service!,
      baseUrl: baseUrl!,
      level: level as Level,
      seed,
      onResult: (result) => {
        if (progressShown) io.progress?.("");
        progressShown = false;
        io.out(formatResult(result));
      },
      onProgress: io.progress
        ? ({ operation, check, done, total, shrinking }) => {
            progressShown = true;
            io.progress!(shrinking ? `${operation} ${check}: reducing a failing request` : `${operation} ${check}: ${Math.min(done, total)}/${total}`);
          }
        : undefined,
    });
    if (progressShown) io.progress?.("");
    if (typeof values.report === "string") writeFileSync(values.report, `${JSON.stringify(report, null, 2)}\n`);
    if (typeof values.junit === "string") writeFileSync(values.junit, junitXml(report));
    if (report.generation) io.out(report.generation.summary);
    for (const entry of report.stale ?? []) io.out(formatStale(entry));
    for (const line of formatClosing(report)) io.out(line);
    io.out(formatSummary(report));
    if (stopping.signal.aborted) {
      const cause = stopping.signal.reason as StopCause;
      io.err(`contract-test: stopped (${cause === "launcher" ? "its launcher ended" : cause}) before the end; the checks it did not finish are reported skipped`);
      return cause === "SIGINT" ? 130 : 143;
    }
    return runFailed(report) ? 1 : 0;
  } catch (error) {
    const redact = redactor([apiKey, pick("webhook-secret", "CONTRACT_WEBHOOK_SECRET")]);
    if (error instanceof UsageError) {
      io.err(`contract-test: ${redact(error.message)}`);
      return 2;
    }
    if (error instanceof UnreachableError) {
      io.err(`contract-test: cannot reach ${maskUrl(baseUrl!)}: ${redact(error.message)}`);
      return 2;
    }
    throw error;
  } finally {
    cancelStop();
  }
}
