export { runContractTests, measureGeneratedRun, optionsFromEnv, listChecks, formatResult, formatSummary } from "./run.js";
export type { ContractTestOptions, CheckResult, GeneratedRunCost, OperationReport, Report, RunLimits } from "./run.js";
export { Contract, loadBundledSpec } from "./judge.js";
export type { Exchange, Verdict, OperationRef, Service } from "./judge.js";
export { UsageError, checkFixtures, fixturesSchema } from "./fixtures.js";
export type { Fixtures, EntitlementsFixtures, WebdataFixtures, ApiKeys } from "./fixtures.js";
export { UnreachableError, AnswerTooLargeError } from "./http.js";
export type { Level } from "./checks/types.js";
export { main } from "./cli.js";
