export { runContractTests, optionsFromEnv, listChecks, formatResult, formatSummary } from "./run.js";
export type { ContractTestOptions, CheckResult, OperationReport, Report } from "./run.js";
export { Contract, loadBundledSpec } from "./judge.js";
export type { Exchange, Verdict, OperationRef, Service } from "./judge.js";
export { UsageError } from "./fixtures.js";
export type { Fixtures, EntitlementsFixtures, WebdataFixtures } from "./fixtures.js";
export { UnreachableError } from "./http.js";
export type { Level } from "./checks/types.js";
export { main } from "./cli.js";
