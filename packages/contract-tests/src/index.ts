import { fixturesSchema as coreFixturesSchema } from "@api-contracts/contract-core";
export { runContractTests, runFailed, measureGeneratedRun, optionsFromEnv, listChecks, formatResult, formatSummary } from "./run.js";
export type { ContractTestOptions, CheckResult, GeneratedRunCost, OperationReport, Report, RunLimits } from "./run.js";
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
