export { startContractProxy } from "./proxy.js";
export type { ContractProxy, ContractProxyOptions, ProxyCounts } from "./options.js";
export type { Violation } from "./report.js";
export type { KnownDifference } from "@api-contracts/contract-core";
export type { RuleError } from "./judge.js";
