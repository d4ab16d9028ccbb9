import { counted, CoverageRecorder } from "@api-contracts/contract-core";
import { Caller, UnreachableError } from "./http.js";
import { contractOf } from "./judge.js";
import { CheckFailure, type Check, type Failure, type Outcome } from "./checks/types.js";
import { UsageError } from "./fixtures.js";
import { KnownDifferences } from "./known-differences.js";
import { pageTitleAt, preflight } from "./preflight.js";
import { WebhookStage, type StageContext } from "./webhooks/stage.js";
import { kitApi, listChecks, selectOperations } from "./checks/registry.js";
import { resolveOptions, type ContractTestOptions } from "./options.js";
import type { CheckResult, Report } from "./report.js";

/** A failure as reports show it: the key redacted from its reason, its reduced request and its curl lines. */
export function shownFailure(failure: Failure, redact: (text: string) => string): Failure {
  const request = JSON.parse(redact(JSON.stringify(failure.reproduce.request))) as Failure["reproduce"]["request"];
  return { reason: redact(failure.reason), reproduce: { ...failure.reproduce, request, curl: failure.reproduce.curl.map(redact) } };
}

/**
 * Runs every check of a level against a target and returns the report. Throws `UsageError` for
 * bad options and for a target that, before any check, does not answer as the API, refuses the key
 * or lacks the fixtures' ids; `UnreachableError` when the target cannot be reached, stops answering
 * within the timeout, or the run passes its deadline.
 */
export async function runContractTests(options: ContractTestOptions): Promise<Report> {
  const resolved = resolveOptions(options);
  const timeout = AbortSignal.timeout(resolved.limits.maxTimeMs);
  const deadline = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const stage = resolved.webhooks && new WebhookStage({ ...resolved.webhooks, maxBodyBytes: resolved.limits.maxAnswerBytes, runDeadline: deadline });
  try {
    return await runResolved(options, resolved, deadline, stage);
  } finally {
    await stage?.close();
  }
}

async function runResolved(options: ContractTestOptions, resolved: ReturnType<typeof resolveOptions>, deadline: AbortSignal, webhooks: WebhookStage | undefined): Promise<Report> {
  const { level, fixtures, apiKey, baseUrl, shownBaseUrl, limits, generate, seed, failOn, redact, headers } = resolved;
  const { service } = options;
  const contract = contractOf(service);
  const api = kitApi(service);
  const selection = { include: options.include ?? [], exclude: options.exclude ?? [] };
  const operations = selectOperations(contract, selection);
  const coverage = new CoverageRecorder(service, contract.doc);
  const caller = new Caller({
    client: api.client,
    headers,
    contract,
    baseUrl,
    apiKey,
    limits,
    deadline,
    redact,
    fetch: options.fetch,
    observe: ({ exchange, sent }) => coverage.record(contract.findOperation(exchange.method, exchange.path)?.operationId, exchange.status, sent),
  });
  const wire = { url: new URL(baseUrl), apiKey, timeoutMs: limits.timeoutMs, maxAnswerBytes: limits.maxAnswerBytes, deadline, headers };
  const ctx: StageContext = { caller, contract, level, fixtures, coverage, webhooks, wire, deadline, deadlineAt: Date.now() + limits.maxTimeMs, shownBaseUrl, headers };
  const shown = { ...(options.include?.length ? { include: selection.include } : {}), ...(options.exclude?.length ? { exclude: selection.exclude } : {}), ...(Object.keys(headers).length ? { headers: Object.keys(headers) } : {}) };
  const report = { service, baseUrl: shownBaseUrl, level, limits, failOn, ...shown, passed: 0, failed: 0, operations: {} } as Omit<Report, "coverage"> as Report;
  const generation = generate === undefined ? undefined : { examples: generate, seed, onProgress: options.onProgress };
  const checks = listChecks(service, level, { contract, generate: generation, ...selection });
  if (level === "webhooks" && !checks.some((check) => !check.generated)) {
    throw new UsageError(`no selected operation of ${service} takes a webhook in its requests, so the kit cannot start a job that calls its receiver`);
  }
  try {
    await preflight(ctx, service, api, operations, (url) => pageTitleAt(url, limits, options.fetch ?? globalThis.fetch));
  } catch (error) {
    // Stopped while the preflight asked: every check is reported not run, as for any stop.
    if (!options.signal?.aborted) throw error;
  }
  const known = options.knownDifferences ? new KnownDifferences(options.knownDifferences) : undefined;
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
  const skip = (check: Check, reason: string) => record({ operation: check.operation, check: check.name, what: check.what, level: check.level, passed: false, skipped: true, reason });

  const durations = new Map<Check, number>();
  const runOne = async (check: Check): Promise<Outcome | UnreachableError> => {
    const began = performance.now();
    try {
      return await check.run(ctx);
    } catch (error) {
      if (error instanceof UnreachableError) return error;
      const reason = error instanceof CheckFailure ? error.message : `the check could not run: ${(error as Error).message}`;
      return { ok: false, reason, ...(check.generated ? { examples: 0 } : {}) };
    } finally {
      durations.set(check, Math.round(performance.now() - began));
    }
  };
  // Checks that mostly wait on the server (a stalled body waits out the server's request deadline)
  // start together with the run and are reported in their place: the run costs one wait, beside
  // the other checks, not one per operation.
  const waiting = new Map(checks.filter((check) => check.waits).map((check) => [check, runOne(check)] as const));
  let goneAfter: string | undefined;
  let examples = 0;
  let reached = 0;
  for (const [index, check] of checks.entries()) {
    if (goneAfter) {
      skip(check, `not run: the target stopped answering after ${goneAfter}`);
      continue;
    }
    if (options.signal?.aborted) {
      skip(check, "not run: the run was stopped");
      continue;
    }
    // Generation ends cleanly at the deadline: what ran is reported, the rest is marked skipped.
    if (deadline.aborted && check.generated) {
      skip(check, "not reached: the run's deadline passed (--max-time)");
      continue;
    }
    if (deadline.aborted) throw new UnreachableError(`the run did not finish within ${limits.maxTimeMs} ms (--max-time); ${index} of ${checks.length} checks ran`);
    if (check.generated) reached++;
    const outcome = await (waiting.get(check) ?? runOne(check));
    // A check the stop cut short says nothing about the target; one that passed before it did.
    if (options.signal?.aborted && (outcome instanceof UnreachableError || !outcome.ok)) {
      skip(check, "not finished: the run was stopped");
      continue;
    }
    // A target that stops answering would cost a timeout per remaining check: the run ends here.
    if (outcome instanceof UnreachableError) {
      await Promise.allSettled(waiting.values());
      throw new UnreachableError(redact(outcome.message));
    }
    if (outcome.skipped) {
      skip(check, redact(outcome.reason));
      continue;
    }
    examples += outcome.examples ?? 0;
    const failures = outcome.failures?.map((failure) => shownFailure(failure, redact));
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
      ...(outcome.examples === undefined ? {} : { examples: outcome.examples }),
      ...(failures ? { reproduce: failures[0]!.reproduce, failures } : {}),
    });
    // A check that took the target down fails; what comes after it cannot run.
    if (outcome.targetGone) goneAfter = `${check.operation} ${check.name}`;
  }
  await Promise.allSettled(waiting.values());

  if (generate !== undefined) {
    const generated = checks.filter((check) => check.generated).length;
    const stopped = deadline.aborted;
    const summary = stopped
      ? `generation stopped ${options.signal?.aborted ? "with the run" : `at --max-time (${limits.maxTimeMs} ms)`}: ${reached} of ${counted(generated, "generated check")} reached, ${counted(examples, "example")} sent; seed ${seed}`
      : `generation: ${counted(generated, "check")}, ${counted(examples, "example")}, seed ${seed}`;
    report.generation = { examples: generate, seed, stopped, summary };
  }
  const stale = known?.stale() ?? [];
  if (stale.length > 0) report.stale = stale;
  report.coverage = coverage.report();
  return report;
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
