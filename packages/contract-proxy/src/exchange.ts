import type { FaultDecision, OperationInfo } from "@api-contracts/contract-core";
import type { LedgerExchange } from "./ledger.js";

/** What one exchange has learned so far, as it passes intake, fault injection and relaying; written out just before its answer's head goes to the client. */
export interface Exchange extends LedgerExchange {
  /** The request target in origin-form: path and query. */
  target: string;
  operation: OperationInfo | undefined;
  /**
   * A fired `slow-body` rule, reported only once the upstream's answer shows whether it applies:
   * only an answer read whole is trickled to the client.
   */
  slowBody?: { operationId: string; decision: FaultDecision };
}
