export { startContractProxy } from "./proxy.js";
export {
  DEFAULT_JUDGE_LIMIT,
  DEFAULT_UPSTREAM_TIMEOUT,
  DEFAULT_HEADERS_TIMEOUT,
  DEFAULT_REQUEST_TIMEOUT,
  RECENT_VIOLATIONS,
  type ContractProxy,
  type ContractProxyOptions,
  type ProxyCounts,
} from "./options.js";
export { VIOLATIONS_HEADER } from "./wire.js";
export { REPORT_LINE_LIMIT, knownReason, type InjectedLine, type StaleLine, type Violation } from "./report.js";
export type { KnownDifference } from "@api-contracts/contract-core";
export type { RuleError } from "./judge.js";
