// Generated from schema/coverage.schema.json by scripts/generate-types.mjs.
// Do not edit: change the schema and run `npm run generate -w @api-contracts/contract-core`
// (the build does it too).

/**
 * What some traffic exercised of one API's contract: for each documented operation, the documented statuses its answers had and had not, and the request members sent and not sent. The contract-test kit writes it as the `coverage` member of its `--report`; the contract proxy writes it for the traffic it saw (`--coverage`). Request members are counted one level deep: the top-level members of a JSON request body (a member any branch of the body schema names), and the query and header parameters the operation documents; path parameters are always sent and are not listed.
 */
export interface Coverage {
  /**
   * The registered API the traffic was judged against: `entitlements` or `webdata`.
   */
  api: string;
  /**
   * Requests answered, those no operation serves included.
   */
  exchanges: number;
  /**
   * Requests whose method and path no documented operation serves.
   */
  unmatched: number;
  /**
   * Every documented operation, by operationId, in document order.
   */
  operations: {
    [k: string]: OperationCoverage;
  };
  totals: CoverageTotals;
}
/**
 * What the traffic exercised of one operation.
 *
 * This interface was referenced by `Coverage`'s JSON-Schema
 * via the `definition` "OperationCoverage".
 */
export interface OperationCoverage {
  /**
   * Upper case: `POST`.
   */
  method: string;
  /**
   * The path template: `/v2/crawl/{id}`.
   */
  path: string;
  /**
   * Requests this operation answered.
   */
  exchanges: number;
  statuses: StatusCoverage;
  members: MemberCoverage;
}
export interface StatusCoverage {
  /**
   * Documented statuses, as the contract writes them, that some answer had (a 418 counts for `4XX` where only the range is documented).
   */
  seen: string[];
  /**
   * Documented statuses no answer had.
   */
  notSeen: string[];
  /**
   * Statuses answered that the operation does not document at all.
   */
  undocumented: string[];
}
/**
 * Request members named `body/<member>`, `query/<name>` or `header/<name>` (header names in lower case; a `/` or `~` in a name escaped as in JSON Pointer).
 */
export interface MemberCoverage {
  /**
   * Documented members some request carried.
   */
  sent: string[];
  /**
   * Documented members no request carried.
   */
  notSent: string[];
}
/**
 * The sums over every operation: documented statuses (`200`, `4XX`, `default`) and how many were seen; documented request members and how many were sent.
 */
export interface CoverageTotals {
  /**
   * Documented operations.
   */
  operations: number;
  /**
   * Operations that answered at least one request.
   */
  exercised: number;
  statuses: CoverageTally;
  members: CoverageTally;
}
/**
 * How many things the contract documents, and how many of them the traffic reached.
 *
 * This interface was referenced by `Coverage`'s JSON-Schema
 * via the `definition` "Tally".
 */
export interface CoverageTally {
  /**
   * How many the contract documents.
   */
  documented: number;
  /**
   * How many of them the traffic reached.
   */
  covered: number;
}
