/**
 * How servers behave, apart from what the contract says: the HTTP edge of the mock, the reference
 * server and the contract proxy, the faults they inject and how, and the sender of webhook calls.
 * Node only. What the contract says (the main entry and `./contract`) imports nothing from here.
 */
export { DEFAULT_LINGER, answerParserError, answerParserErrors, createEdgeServer, lingerOnClose, listen, parserProblem, rawHttpAnswer, type LingerBounds, type ServerLimits } from "./http-edge.js";
export { FaultInjector, describeFault, sampleLatency, seedFor, seededRandom, type FaultDecision, type FaultEvent, type FaultInjectorOptions, type FaultsOptions } from "./faults/plan.js";
export { SLOW_BODY_INTERVAL_MS, delayAnswer, endSlowly, hangConnection, resetConnection, sendInjected } from "./faults/effects.js";
export {
  DEFAULT_DELIVERY_LIMITS,
  WebhookDeliverer,
  WebhookSequence,
  describeDeliveryReport,
  jobEventCall,
  type DeliveryLimits,
  type DeliveryOutcome,
  type DeliveryReport,
  type JobEvent,
  type WebhookCall,
  type WebhookDelivererOptions,
} from "./webhook-sender.js";
