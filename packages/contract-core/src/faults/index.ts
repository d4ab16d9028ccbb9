export {
  FAULTS_FILE_LIMIT,
  MAX_LATENCY_MS,
  FaultsError,
  checkFaultTargets,
  faultsSchema,
  loadFaults,
  parseFaults,
  type CheckedFaultRule,
  type FaultTargets,
  type Faults,
  type FaultRule,
  type Latency,
  type LogNormalLatency,
  type UniformLatency,
} from "./format.js";
export { documentedAnswer, type InjectedAnswer } from "./answers.js";
export { FaultInjector, describeFault, sampleLatency, seedFor, seededRandom, type FaultDecision, type FaultEvent, type FaultInjectorOptions, type FaultsOptions } from "./plan.js";
export { SLOW_BODY_INTERVAL_MS, SLOW_BODY_PIECES, delayAnswer, endSlowly, hangConnection, resetConnection, sendInjected } from "./effects.js";
