import { Caller, UnreachableError } from "./http.js";
import { Contract, loadBundledSpec, type Service } from "./judge.js";
import { entitlementsChecks } from "./checks/entitlements.js";
import { webdataChecks } from "./checks/webdata.js";
import { CheckFailure, type Check, type CheckContext, type Level } from "./checks/types.js";
import { readFixturesFile, requireServiceFixtures, UsageError, type Fixtures } from "./fixtures.js";

export const SERVICES: readonly Service[] = ["entitlements", "webdata"];
export const LEVELS: readonly Level[] = ["schema", "behavior"];

export interface ContractTestOptions {
  service: Service;
  baseUrl: string;
  /** Bearer key; defaults to `fixtures.api_keys[service]`. */
  apiKey?: string;
  /** The fixtures object, or the path of a JSON file holding it. */
  fixtures?: Fixtures | string;
  level?: Level;
  /** Called after each check, in order (the CLI prints from here). */
  onResult?: (result: CheckResult) => void;
  /** Used for every request instead of the global fetch. */
  fetch?: typeof globalThis.fetch;
}

export interface CheckResult {
  operation: string;
  /** Stable name of the check within its operation, e.g. `auth-missing`. */
  check: string;
  what: string;
  level: Level;
  passed: boolean;
  reason: string;
}

export interface OperationReport {
  passed: number;
  failed: number;
  checks: CheckResult[];
}

export interface Report {
  service: Service;
  baseUrl: string;
  level: Level;
  passed: number;
  failed: number;
  /** Results grouped by operationId, in the order the operations were first checked. */
  operations: Record<string, OperationReport>;
}

/**
 * Options from CONTRACT_SERVICE, CONTRACT_BASE_URL, CONTRACT_API_KEY, CONTRACT_FIXTURES and
 * CONTRACT_LEVEL, for runs configured by the environment (e.g. inside vitest).
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
  };
}

/** The checks a level runs for a service, in order. */
export function listChecks(service: Service, level: Level, contract = new Contract(loadBundledSpec(service))): Check[] {
  const all = service === "entitlements" ? entitlementsChecks(contract) : webdataChecks(contract);
  return all.filter((check) => level === "behavior" || check.level === "schema");
}

function resolveOptions(options: ContractTestOptions): { level: Level; fixtures: Fixtures | undefined; apiKey: string; baseUrl: string } {
  if (!SERVICES.includes(options.service)) throw new UsageError(`service must be one of ${SERVICES.join(", ")} (got ${JSON.stringify(options.service)})`);
  const level = options.level ?? "schema";
  if (!LEVELS.includes(level)) throw new UsageError(`level must be one of ${LEVELS.join(", ")} (got ${JSON.stringify(level)})`);
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw new UsageError(`base URL ${JSON.stringify(options.baseUrl)} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`base URL must be http or https (got ${url.protocol})`);
  const fixtures = typeof options.fixtures === "string" ? readFixturesFile(options.fixtures) : options.fixtures;
  if (level === "behavior") requireServiceFixtures(fixtures, options.service);
  const apiKey = options.apiKey || fixtures?.api_keys?.[options.service];
  if (!apiKey) throw new UsageError(`an API key is needed: pass --api-key or set api_keys.${options.service} in the fixtures`);
  return { level, fixtures, apiKey, baseUrl: url.href.replace(/\/+$/, "") };
}

/**
 * Runs every check of a level against a target and returns the report. Throws `UsageError` for
 * bad options and `UnreachableError` when the target never answers.
 */
export async function runContractTests(options: ContractTestOptions): Promise<Report> {
  const { level, fixtures, apiKey, baseUrl } = resolveOptions(options);
  const contract = new Contract(loadBundledSpec(options.service));
  const caller = new Caller({ service: options.service, contract, baseUrl, apiKey, fetch: options.fetch });
  const ctx: CheckContext = { caller, contract, level, fixtures };
  const report: Report = { service: options.service, baseUrl, level, passed: 0, failed: 0, operations: {} };

  for (const check of listChecks(options.service, level, contract)) {
    let passed: boolean;
    let reason: string;
    try {
      const outcome = await check.run(ctx);
      passed = outcome.ok;
      reason = outcome.reason;
    } catch (error) {
      if (error instanceof UnreachableError && !caller.reached) throw error;
      passed = false;
      reason = error instanceof CheckFailure || error instanceof UnreachableError ? error.message : `the check could not run: ${(error as Error).message}`;
    }
    const result: CheckResult = { operation: check.operation, check: check.name, what: check.what, level: check.level, passed, reason };
    const group = (report.operations[check.operation] ??= { passed: 0, failed: 0, checks: [] });
    group.checks.push(result);
    group[passed ? "passed" : "failed"]++;
    report[passed ? "passed" : "failed"]++;
    options.onResult?.(result);
  }
  return report;
}

/** One line per check: status, operation and check name, what was checked, and why it passed or failed. */
export function formatResult(result: CheckResult): string {
  return `${result.passed ? "PASS" : "FAIL"} ${result.operation} ${result.check}: ${result.what} -- ${result.reason}`;
}

export function formatSummary(report: Pick<Report, "passed" | "failed">): string {
  return `${report.passed} passed, ${report.failed} failed`;
}
