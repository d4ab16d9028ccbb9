import { fixturesSchema as coreFixturesSchema } from "@api-contracts/contract-core";
export { runContractTests, measureGeneratedRun, type GeneratedRunCost } from "./run.js";
export { listChecks, services, type Selection, type Service } from "./checks/registry.js";
export { optionsFromEnv, type ContractTestOptions } from "./options.js";
export { formatResult, formatSummary } from "./output.js";
export { runFailed, type CheckResult, type OperationReport, type Report, type RunLimits } from "./report.js";
export { Contract, loadBundledSpec, type Exchange, type Verdict } from "./judge.js";
export { judgeJob, type Finding, type JobRecord } from "./webhooks/judge.js";
export { UsageError, checkFixtures, PLACEHOLDER, type Fixtures, type EntitlementsFixtures, type WebdataFixtures, type ApiKeys } from "./fixtures.js";
/** The fixtures format's JSON Schema (contract-core's; also shipped as `@api-contracts/contract-tests/fixtures.schema.json`). */
export const fixturesSchema = coreFixturesSchema();
export { fixturesTemplate } from "./init.js";
export { UnreachableError, AnswerTooLargeError } from "./http.js";
export type { Level, Severity } from "./checks/types.js";
export { main } from "./cli.js";
export { redactor, REDACTED, type Coverage, type OperationCoverage } from "@api-contracts/contract-core";
export { KnownDifferences, loadKnownDifferences, parseKnownDifferences, type KnownDifference } from "./known-differences.js";
