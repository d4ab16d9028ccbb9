import { counted, CoverageRecorder, formatCoverage, truncate, type Coverage } from "@api-contracts/contract-core";
import { Caller, DEFAULT_LIMITS, UnreachableError, type ObservedExchange } from "./http.js";
import { maskUrl, redactor, withoutCredentials } from "./secrets.js";
import { Contract, loadBundledSpec, type Service } from "./judge.js";
import { entitlementsChecks } from "./checks/entitlements.js";
import { webdataChecks } from "./checks/webdata.js";
import { CheckFailure, SEVERITIES, type Check, type CheckContext, type Level, type Outcome, type Severity } from "./checks/types.js";
import { checkFixtures, PLACEHOLDER, readFixturesFile, requireServiceFixtures, UsageError, type Fixtures } from "./fixtures.js";
import { KnownDifferences, loadKnownDifferences, type KnownDifference } from "./known-differences.js";
import { AnswerTally, diagnose } from "./diagnose.js";
import { httpProbes } from "./probes/checks.js";
import { generatedChecks, type Failure, type GeneratedOutcome, type Progress, type Reproduction } from "./generate/generated.js";
import { DEFAULT_WEBHOOK_DEADLINE_MS, WebhookStage, type WebhookReceiverOptions } from "./webhooks/stage.js";

/** A failure as reports show it: the key redacted from its reason, its reduced request and its curl lines. */
export function shownFailure(failure: Failure, redact: (text: string) => string): Failure {
  const request = JSON.parse(redact(JSON.stringify(failure.reproduce.request))) as Failure["reproduce"]["request"];
  return { reason: redact(failure.reason), reproduce: { ...failure.reproduce, request, curl: failure.reproduce.curl.map(redact) } };
}

export const SERVICES: readonly Service[] = ["entitlements", "webdata"];
export const LEVELS: readonly Level[] = ["schema", "behavior", "http", "webhooks"];

export interface ContractTestOptions {
  service: Service;
  baseUrl: string;
  /** Bearer key; defaults to `fixtures.api_keys[service]`. */
  apiKey?: string;
  /** Failures and warnings the implementer has accepted: reported as known (see `loadKnownDifferences`). */
  knownDifferences?: readonly KnownDifference[];
  /** The least severity that fails the run: `failure` (default), or `warning` to fail on warnings too. */
  failOn?: Severity;
  /** The fixtures object, or the path of a JSON file holding it. */
  fixtures?: Fixtures | string;
  level?: Level;
  /** Called after each check, in order (the CLI prints from here). */
  onResult?: (result: CheckResult) => void;
  /** Longest wait for one answer, in milliseconds (default 10000); past it the target counts as unreachable. */
  timeoutMs?: number;
  /** Longest whole run, in milliseconds (default 300000); past it the target counts as unreachable. */
  maxTimeMs?: number;
  /** Most bytes read of one answer (default 1048576); a longer answer fails its check. */
  maxAnswerBytes?: number;
  /** Used for every request instead of the global fetch. */
  fetch?: typeof globalThis.fetch;
  /** Examples per generated check (valid, invalid, linked); generation is off when absent. */
  generate?: number;
  /** Seed of the generated examples (default: random); the same seed makes the same requests. */
  seed?: number;
  /** Called after each generated example (the CLI draws its progress line from here). */
  onProgress?: (progress: Progress) => void;
  /**
   * `host:port` the kit's webhook receiver listens on, which the target must be able to reach
   * (default: 127.0.0.1 with a free port, for a target on this machine's loopback; the webhook
   * stage is skipped for another target without it).
   */
  webhookReceiver?: string;
  /** Base URL the target calls to reach the receiver, when it is not `http://<webhookReceiver>` (a tunnel, a container's name for the host). */
  webhookUrl?: string;
  /** The secret the target signs its webhook calls with; signatures are not judged without it. */
  webhookSecret?: string;
  /** Longest wait for a job's last webhook call, from its start (default 60000 ms). */
  webhookDeadlineMs?: number;
}

export const DEFAULT_MAX_TIME_MS = 300_000;

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
  /** When most answers are not the API's: the likely cause, in one line. */
  hint?: string;
}

/** Whether a report fails its run: a failure, or a warning when warnings fail it. */
export function runFailed(report: Pick<Report, "failed" | "warnings" | "failOn">): boolean {
  return report.failed > 0 || (report.failOn === "warning" && (report.warnings ?? 0) > 0);
}

/** The least severity that fails a run, from a flag, a variable or an option; a UsageError for anything else. */
export function parseFailOn(name: string, value: string | undefined): Severity | undefined {
  if (value === undefined) return undefined;
  if (!SEVERITIES.includes(value as Severity)) throw new UsageError(`${name} must be one of ${SEVERITIES.join(", ")} (got ${JSON.stringify(value)})`);
  return value as Severity;
}

/** A limit from a flag, a variable or an option: a whole number of at least 1, or a UsageError naming it. */
export function parseLimit(name: string, value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 1) throw new UsageError(`${name} must be a whole number of at least 1 (got ${JSON.stringify(value)})`);
  return number;
}

/**
 * Options from CONTRACT_SERVICE, CONTRACT_BASE_URL, CONTRACT_API_KEY, CONTRACT_FIXTURES,
 * CONTRACT_LEVEL, CONTRACT_TIMEOUT, CONTRACT_MAX_TIME, CONTRACT_MAX_ANSWER_BYTES,
 * CONTRACT_GENERATE, CONTRACT_SEED, CONTRACT_FAIL_ON, CONTRACT_KNOWN_DIFFERENCES,
 * CONTRACT_WEBHOOK_SECRET, CONTRACT_WEBHOOK_RECEIVER, CONTRACT_WEBHOOK_URL and
 * CONTRACT_WEBHOOK_DEADLINE, for runs configured by the environment (e.g. inside vitest).
 */
export function optionsFromEnv(env: Record<string, string | undefined> = process.env): ContractTestOptions {
  const value = (name: string) => env[name] || undefined;
  const service = value("CONTRACT_SERVICE");
  const baseUrl = value("CONTRACT_BASE_URL");
  if (!service || !baseUrl) throw new UsageError("CONTRACT_SERVICE and CONTRACT_BASE_URL must be set");
  return {
    service: service as Service,
    baseUrl,
    apiKey: value("CONTRACT_API_KEY"),
    fixtures: value("CONTRACT_FIXTURES"),
    level: value("CONTRACT_LEVEL") as Level | undefined,
    timeoutMs: parseLimit("CONTRACT_TIMEOUT", value("CONTRACT_TIMEOUT")),
    maxTimeMs: parseLimit("CONTRACT_MAX_TIME", value("CONTRACT_MAX_TIME")),
    maxAnswerBytes: parseLimit("CONTRACT_MAX_ANSWER_BYTES", value("CONTRACT_MAX_ANSWER_BYTES")),
    generate: parseLimit("CONTRACT_GENERATE", value("CONTRACT_GENERATE")),
    seed: parseSeed(value("CONTRACT_SEED")),
    failOn: parseFailOn("CONTRACT_FAIL_ON", value("CONTRACT_FAIL_ON")),
    webhookSecret: value("CONTRACT_WEBHOOK_SECRET"),
    webhookReceiver: value("CONTRACT_WEBHOOK_RECEIVER"),
    webhookUrl: value("CONTRACT_WEBHOOK_URL"),
    webhookDeadlineMs: parseLimit("CONTRACT_WEBHOOK_DEADLINE", value("CONTRACT_WEBHOOK_DEADLINE")),
    ...(value("CONTRACT_KNOWN_DIFFERENCES") ? { knownDifferences: loadKnownDifferences(value("CONTRACT_KNOWN_DIFFERENCES")!) } : {}),
  };
}

/** The checks a level runs for a service, in order: schema checks, behaviour checks, then the HTTP probes. */
export function listChecks(service: Service, level: Level, contract = new Contract(loadBundledSpec(service))): Check[] {
  const all = [...(service === "entitlements" ? entitlementsChecks(contract) : webdataChecks(contract)), ...httpProbes(contract)];
  return all.filter((check) => level === "behavior" || check.level === level);
}

interface Resolved {
  level: Level;
  fixtures: Fixtures | undefined;
  apiKey: string;
  /** Where requests go: the base URL without credentials. */
  baseUrl: string;
  /** The base URL as it may be printed. */
  shownBaseUrl: string;
  limits: RunLimits;
  generate: number | undefined;
  seed: number;
  failOn: Severity;
  redact: (text: string) => string;
  /** The webhook stage's settings; absent at levels that do not run it. */
  webhooks?: { receiver?: WebhookReceiverOptions; unavailable?: string; secret?: string; deadlineMs: number };
}

/** Whether a host name is this machine's loopback: a target there reaches a receiver on 127.0.0.1. */
function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** `host:port` (an IPv6 host in brackets), or a UsageError naming the option. */
function parseHostPort(name: string, value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[3]);
  if (!match || port > 65535) throw new UsageError(`${name} must be host:port, e.g. 127.0.0.1:0 or [::1]:8080 (got ${JSON.stringify(value)})`);
  return { host: match[1] ?? match[2]!, port };
}

/** Where the webhook stage's receiver listens and what the target calls, or why there is none (absent at levels without the stage). */
export function webhookStageSettings(options: ContractTestOptions, level: Level, target: URL): Resolved["webhooks"] {
  if (level !== "behavior" && level !== "webhooks") return undefined;
  const deadlineMs = parseLimit("webhookDeadlineMs", options.webhookDeadlineMs) ?? DEFAULT_WEBHOOK_DEADLINE_MS;
  const secret = options.webhookSecret || undefined;
  let publicUrl: string | undefined;
  if (options.webhookUrl !== undefined) {
    if (!URL.canParse(options.webhookUrl) || !/^https?:$/.test(new URL(options.webhookUrl).protocol)) throw new UsageError(`webhook URL must be an http or https URL (got ${JSON.stringify(options.webhookUrl)})`);
    publicUrl = options.webhookUrl;
  }
  let listen: { host: string; port: number } | undefined;
  if (options.webhookReceiver !== undefined) listen = parseHostPort("webhook receiver", options.webhookReceiver);
  else if (isLoopback(target.hostname)) listen = { host: target.hostname.replace(/^\[|\]$/g, "") === "::1" ? "::1" : "127.0.0.1", port: 0 };
  if (!listen) {
    const unavailable = `the target (${target.hostname}) is not on this machine: give a receiver address it can reach (--webhook-receiver host:port, and --webhook-url when it calls another name)`;
    if (level === "webhooks") throw new UsageError(unavailable);
    return { unavailable, secret, deadlineMs };
  }
  if ((listen.host === "0.0.0.0" || listen.host === "::") && publicUrl === undefined) throw new UsageError(`a receiver listening on every interface (${listen.host}) needs --webhook-url: the address the target calls`);
  return { receiver: { ...listen, ...(publicUrl ? { publicUrl } : {}) }, secret, deadlineMs };
}

/** A seed for a run that was given none; it is printed so that the run can be repeated. */
export function randomSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}

/** Parses a seed from a flag or variable: a whole number, or a UsageError. */
export function parseSeed(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\s*-?\d+\s*$/.test(value)) throw new UsageError(`--seed must be a whole number (got ${JSON.stringify(value)})`);
  return Number(value);
}

function resolveOptions(options: ContractTestOptions): Resolved {
  if (!SERVICES.includes(options.service)) throw new UsageError(`service must be one of ${SERVICES.join(", ")} (got ${JSON.stringify(options.service)})`);
  const level = options.level ?? "schema";
  if (!LEVELS.includes(level)) throw new UsageError(`level must be one of ${LEVELS.join(", ")} (got ${JSON.stringify(level)})`);
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw new UsageError(`base URL ${JSON.stringify(maskUrl(options.baseUrl))} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`base URL must be http or https (got ${url.protocol})`);
  const fixtures = typeof options.fixtures === "string" ? readFixturesFile(options.fixtures) : options.fixtures && checkFixtures(options.fixtures);
  if (level === "behavior") requireServiceFixtures(fixtures, options.service);
  const apiKey = options.apiKey || fixtures?.api_keys?.[options.service];
  if (!apiKey) throw new UsageError(`an API key is needed: pass --api-key or set api_keys.${options.service} in the fixtures`);
  if (PLACEHOLDER.test(apiKey)) throw new UsageError(`api_keys.${options.service} in the fixtures still holds its placeholder from contract-test init: put a key your server accepts there, or pass --api-key`);
  const limits: RunLimits = {
    timeoutMs: parseLimit("timeoutMs", options.timeoutMs) ?? DEFAULT_LIMITS.timeoutMs,
    maxTimeMs: parseLimit("maxTimeMs", options.maxTimeMs) ?? DEFAULT_MAX_TIME_MS,
    maxAnswerBytes: parseLimit("maxAnswerBytes", options.maxAnswerBytes) ?? DEFAULT_LIMITS.maxAnswerBytes,
  };
  const generate = parseLimit("generate", options.generate);
  if (generate !== undefined && level === "http") throw new UsageError("generate applies to the schema and behavior levels, not to http");
  if (options.seed !== undefined && !(Number.isSafeInteger(options.seed) && Math.abs(options.seed) <= 0x7fffffff)) {
    throw new UsageError(`seed must be a whole number between -2147483647 and 2147483647 (got ${JSON.stringify(options.seed)})`);
  }
  const seed = options.seed ?? randomSeed();
  const failOn = options.failOn === undefined ? "failure" : parseFailOn("failOn", options.failOn)!;
  const trim = (href: string) => href.replace(/\/+$/, "");
  return {
    level,
    fixtures,
    apiKey,
    baseUrl: trim(withoutCredentials(url).href),
    shownBaseUrl: trim(maskUrl(url.href)),
    limits,
    generate,
    seed,
    failOn,
    redact: redactor([apiKey, url.password, url.username && !url.password ? url.username : undefined, options.webhookSecret]),
    webhooks: webhookStageSettings(options, level, url),
  };
}

/**
 * Runs every check of a level against a target and returns the report. Throws `UsageError` for
 * bad options and `UnreachableError` when the target cannot be reached, stops answering within
 * the timeout, or the run passes its deadline.
 */
export async function runContractTests(options: ContractTestOptions): Promise<Report> {
  const resolved = resolveOptions(options);
  const deadline = AbortSignal.timeout(resolved.limits.maxTimeMs);
  const stage = resolved.webhooks && new WebhookStage({ ...resolved.webhooks, maxBodyBytes: resolved.limits.maxAnswerBytes, runDeadline: deadline });
  try {
    return await runResolved(options, resolved, deadline, stage);
  } finally {
    await stage?.close();
  }
}

async function runResolved(options: ContractTestOptions, resolved: Resolved, deadline: AbortSignal, webhooks: WebhookStage | undefined): Promise<Report> {
  const { level, fixtures, apiKey, baseUrl, shownBaseUrl, limits, generate, seed, failOn, redact } = resolved;
  const contract = new Contract(loadBundledSpec(options.service));
  const deadlineAt = Date.now() + limits.maxTimeMs;
  const coverage = new CoverageRecorder(options.service, contract.doc);
  const tally = new AnswerTally();
  const observe = (observed: ObservedExchange) => {
    tally.add(observed);
    coverage.record(contract.findOperation(observed.exchange.method, observed.exchange.path)?.operationId, observed.exchange.status, observed.sent);
  };
  const caller = new Caller({ service: options.service, contract, baseUrl, apiKey, limits, deadline, redact, fetch: options.fetch, observe });
  const ctx: CheckContext = { caller, contract, level, fixtures, coverage, webhooks, wire: { url: new URL(baseUrl), apiKey, timeoutMs: limits.timeoutMs, maxAnswerBytes: limits.maxAnswerBytes, deadline } };
  const report = { service: options.service, baseUrl: shownBaseUrl, level, limits, failOn, passed: 0, failed: 0, operations: {} } as Omit<Report, "coverage"> as Report;
  const checks = listChecks(options.service, level, contract);
  if (level === "webhooks" && checks.length === 0) {
    throw new UsageError(`no operation of ${options.service} takes a webhook in its requests, so the kit cannot start a job that calls its receiver`);
  }
  const known = options.knownDifferences ? new KnownDifferences(options.knownDifferences) : undefined;
  const finish = async (): Promise<Report> => {
    const stale = known?.stale() ?? [];
    if (stale.length > 0) report.stale = stale;
    report.coverage = coverage.report();
    if (report.failed > 0) {
      const pageTitle = (url: string) => pageTitleAt(url, limits, options.fetch ?? globalThis.fetch);
      const hint = await diagnose({ service: options.service, baseUrl: new URL(baseUrl), tally, pageTitle });
      if (hint) report.hint = redact(hint);
    }
    return report;
  };
  const record = (result: CheckResult) => {
    const group = (report.operations[result.operation] ??= { passed: 0, failed: 0, checks: [] });
    group.checks.push(result);
    if (!result.passed && !result.skipped) result.severity ??= "failure";
    const accepted = !result.passed && !result.skipped ? known?.explain(result.operation, result.check, result.reason) : undefined;
    if (accepted) result.known = accepted.why;
    const tally = result.skipped ? "skipped" : result.known !== undefined ? "known" : result.passed ? "passed" : result.severity === "warning" ? "warnings" : "failed";
    if (tally !== "skipped") group[tally] = (group[tally] ?? 0) + 1;
    report[tally] = (report[tally] ?? 0) + 1;
    options.onResult?.(result);
  };
  const skip = (check: Pick<Check, "operation" | "name" | "what" | "level">, reason: string) =>
    record({ operation: check.operation, check: check.name, what: check.what, level: check.level, passed: false, skipped: true, reason });

  const durations = new Map<Check, number>();
  const runOne = async (check: Check): Promise<Outcome | UnreachableError> => {
    const began = performance.now();
    try {
      return await check.run(ctx);
    } catch (error) {
      if (error instanceof UnreachableError) return error;
      return { ok: false, reason: error instanceof CheckFailure ? error.message : `the check could not run: ${(error as Error).message}` };
    } finally {
      durations.set(check, Math.round(performance.now() - began));
    }
  };
  // Checks that mostly wait on the server (a stalled body waits out the server's request deadline)
  // start together with the run and are reported in their place: the run costs one wait, beside
  // the other checks, not one per operation.
  const waiting = new Map(checks.filter((check) => check.waits).map((check) => [check, runOne(check)] as const));
  let goneAfter: string | undefined;
  for (const [index, check] of checks.entries()) {
    if (goneAfter) {
      skip(check, `not run: the target stopped answering after ${goneAfter}`);
      continue;
    }
    if (deadline.aborted) throw new UnreachableError(`the run did not finish within ${limits.maxTimeMs} ms (--max-time); ${index} of ${checks.length} checks ran`);
    const outcome = await (waiting.get(check) ?? runOne(check));
    // A target that stops answering would cost a timeout per remaining check: the run ends here.
    if (outcome instanceof UnreachableError) {
      await Promise.allSettled(waiting.values());
      throw new UnreachableError(redact(outcome.message));
    }
    if (outcome.skipped) {
      skip(check, redact(outcome.reason));
      continue;
    }
    record({
      operation: check.operation,
      check: check.name,
      what: check.what,
      level: check.level,
      passed: outcome.ok,
      reason: redact(outcome.reason),
      durationMs: durations.get(check)!,
      ...(outcome.ok || !outcome.severity ? {} : { severity: outcome.severity }),
      ...(outcome.evidence && !outcome.ok ? { evidence: outcome.evidence.map(redact) } : {}),
    });
    // A check that took the target down fails; what comes after it cannot run.
    if (outcome.targetGone) goneAfter = `${check.operation} ${check.name}`;
  }
  await Promise.allSettled(waiting.values());

  if (generate === undefined) return finish();
  // Generation ends cleanly at the deadline: what ran is reported, the rest is marked skipped.
  const generated = generatedChecks(options.service, contract, { examples: generate, seed, onProgress: options.onProgress });
  let examples = 0;
  let reached = 0;
  for (const check of generated) {
    const base = { operation: check.operation, check: check.name, what: check.what, level: "schema" as const };
    if (goneAfter) {
      skip({ ...check, level: "schema" }, `not run: the target stopped answering after ${goneAfter}`);
      continue;
    }
    if (deadline.aborted) {
      skip({ ...check, level: "schema" }, "not reached: the run's deadline passed (--max-time)");
      continue;
    }
    reached++;
    let outcome: GeneratedOutcome;
    const began = performance.now();
    try {
      outcome = await check.run({ ...ctx, deadline, deadlineAt, shownBaseUrl });
    } catch (error) {
      if (error instanceof UnreachableError) throw new UnreachableError(redact(error.message));
      outcome = { ok: false, reason: `the check could not run: ${(error as Error).message}`, examples: 0, stopped: false };
    }
    examples += outcome.examples;
    const failures = outcome.failures?.map((failure) => shownFailure(failure, redact));
    record({ ...base, passed: outcome.ok, reason: redact(outcome.reason), durationMs: Math.round(performance.now() - began), examples: outcome.examples, ...(failures ? { reproduce: failures[0]!.reproduce, failures } : {}) });
  }
  const stopped = deadline.aborted;
  const summary = stopped
    ? `generation stopped at --max-time (${limits.maxTimeMs} ms): ${reached} of ${counted(generated.length, "generated check")} reached, ${counted(examples, "example")} sent; seed ${seed}`
    : `generation: ${counted(generated.length, "check")}, ${counted(examples, "example")}, seed ${seed}`;
  report.generation = { examples: generate, seed, stopped, summary };
  return finish();
}

/** The title of the web page at `url` ("" for an untitled one), or undefined when it serves none: one request, within the run's limits. */
async function pageTitleAt(url: string, limits: RunLimits, send: typeof globalThis.fetch): Promise<string | undefined> {
  try {
    const response = await send(url, { signal: AbortSignal.timeout(limits.timeoutMs), redirect: "manual" });
    if (!/^text\/html\b/i.test(response.headers.get("content-type") ?? "")) {
      await response.body?.cancel();
      return undefined;
    }
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
 * The lines a terminal shows after the checks, before the totals: the coverage, what fails the
 * run when warnings do, and the hint when most answers were not the API's.
 */
export function formatClosing(report: Report): string[] {
  const lines = formatCoverage(report.coverage);
  const warnings = report.warnings ?? 0;
  if (report.failOn === "warning" && warnings > 0) lines.push(`${counted(warnings, "warning")} ${warnings === 1 ? "fails" : "fail"} this run (--fail-on warning)`);
  if (report.hint) lines.push(report.hint);
  return lines;
}

/** One line per accepted difference that no failure matched this run. */
export function formatStale(entry: KnownDifference): string {
  return `STALE ${entry.operation} ${entry.check}: no failure contains "${entry.reason}" any more; the entry (${entry.why}) can go`;
}

/** What one generated run cost: the figures the benchmarks quote. */
export interface GeneratedRunCost {
  generatedChecks: number;
  requests: number;
  seconds: number;
  failed: number;
}

/** Runs the checks with generation on and counts the requests it sent and the time it took. */
export async function measureGeneratedRun(options: ContractTestOptions & { generate: number }): Promise<GeneratedRunCost> {
  let requests = 0;
  const send = options.fetch ?? globalThis.fetch;
  const counting: typeof globalThis.fetch = (input, init) => {
    requests++;
    return send(input, init);
  };
  const began = performance.now();
  const report = await runContractTests({ ...options, fetch: counting });
  const seconds = (performance.now() - began) / 1000;
  const generatedChecks = Object.values(report.operations)
    .flatMap((group) => group.checks)
    .filter((check) => check.check.startsWith("generated-")).length;
  return { generatedChecks, requests, seconds, failed: report.failed };
}
