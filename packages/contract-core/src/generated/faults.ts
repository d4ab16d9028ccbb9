// Generated from schema/faults.schema.json by scripts/generate-types.mjs.
// Do not edit: change the schema and run `npm run generate -w @api-contracts/contract-core`
// (the build does it too).

/**
 * Delay before the answer, in milliseconds (at most 60000): a fixed number, a uniform range `{min, max}`, or a long-tailed log-normal `{median, p99}`.
 *
 * This interface was referenced by `Faults`'s JSON-Schema
 * via the `definition` "Latency".
 */
export type Latency = number | UniformLatency | LogNormalLatency;

/**
 * Faults a mock (`api-mock --faults`) or a contract proxy (`contract-proxy --faults`) injects into the answers it gives: per request, the first rule that matches the request's operation and wins its draw fires. Draws come from a seeded generator, so a run with the same seed and the same requests injects the same faults.
 */
export interface Faults {
  /**
   * Where this format's schema lives, for editors.
   */
  $schema?: string;
  /**
   * The rules, tried in this order.
   *
   * @minItems 1
   * @maxItems 100
   */
  rules: [FaultRule, ...FaultRule[]];
}
/**
 * One rule: which requests it may hit, how often, and what it does to them. It adds latency, or a fault, or an error status, or latency and one of the other two.
 *
 * This interface was referenced by `Faults`'s JSON-Schema
 * via the `definition` "FaultRule".
 */
export interface FaultRule {
  /**
   * Named in the log line of each request the rule fires on. Default: `rule <n>`, counting from 1.
   */
  name?: string;
  /**
   * The operationId (or operationIds) the rule applies to, such as `checkAccess` or `startCrawl`. Default: every operation.
   */
  operation?: string | [string, ...string[]];
  /**
   * Chance, from 0 to 1, that the rule fires on a request it applies to. Default 1.
   */
  probability?: number;
  latency?: Latency;
  /**
   * `reset`: the connection is closed without an answer. `hang`: nothing is sent until the client gives up, or the server's request deadline passes and it closes the connection. `slow-body`: the status and headers at once, the body trickled in pieces.
   */
  fault?: "reset" | "hang" | "slow-body";
  /**
   * Answer with this error status instead, in the operation's documented shape: its first documented example of the status, with the headers the description gives it (`Retry-After: 1` with an Entitlements 503). The operation must document the status.
   */
  status?: number;
  /**
   * With `status`: send `Retry-After` with this many seconds, in place of what the description gives.
   */
  retryAfter?: number;
}
/**
 * Any delay from `min` to `max` milliseconds, equally likely.
 */
export interface UniformLatency {
  /**
   * Shortest delay, in milliseconds.
   */
  min: number;
  /**
   * Longest delay, in milliseconds (at least `min`).
   */
  max: number;
}
/**
 * Delays spread as services' latencies are: half of them below `median`, one in a hundred above `p99` (cut at 60000).
 */
export interface LogNormalLatency {
  /**
   * Median delay, in milliseconds.
   */
  median: number;
  /**
   * 99th percentile of the delay, in milliseconds (at least `median`).
   */
  p99: number;
}
