import { fixturesSchema as coreFixturesSchema } from "@api-contracts/contract-core";
export { runContractTests, measureGeneratedRun, type GeneratedRunCost } from "./run.js";
export { listChecks } from "./checks/registry.js";
export { optionsFromEnv, type ContractTestOptions } from "./options.js";
export { formatResult, formatSummary } from "./output.js";
export { runFailed, type CheckResult, type OperationReport, type Report, type RunLimits } from "./report.js";
export { Contract, loadBundledSpec } from "./judge.js";
export type { Exchange, Verdict, OperationRef, Service } from "./judge.js";
export { UsageError, checkFixtures, PLACEHOLDER } from "./fixtures.js";
/** The fixtures format's JSON Schema (contract-core's; also shipped as `@api-contracts/contract-tests/fixtures.schema.json`). */
export const fixturesSchema = coreFixturesSchema();
export { fixturesTemplate } from "./init.js";
export type { Fixtures, EntitlementsFixtures, WebdataFixtures, ApiKeys } from "./fixtures.js";
export { UnreachableError, AnswerTooLargeError } from "./http.js";
export type { Level, Severity } from "./checks/types.js";
export type { Coverage, OperationCoverage } from "@api-contracts/contract-core";
export { main } from "./cli.js";
export { redactor, REDACTED } from "./secrets.js";
export { KnownDifferences, loadKnownDifferences, parseKnownDifferences, type KnownDifference } from "./known-differences.js";
