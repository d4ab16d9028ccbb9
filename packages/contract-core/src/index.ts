export * from "./contract.js";
export {
  WEBHOOK_SIGNATURE_SCHEMES,
  walkWebhooks,
  webhookSignatureScheme,
  normalizeHeaders,
  signWebhook,
  checkWebhookSignature,
  type WalkedWebhook,
  type WebhookSignatureScheme,
  type WebhookHeaders,
  type SignOptions,
  type SignatureFailure,
  type SignatureCheck,
  type SignatureCheckOptions,
} from "./webhooks.js";
export {
  DEFAULT_DELIVERY_LIMITS,
  DELIVERY_ORDER_GRACE_MS,
  subscriptionMismatches,
  type SubscriptionMismatch,
  WebhookDeliverer,
  WebhookSequence,
  describeDeliveryReport,
  jobEventCall,
  subscribesTo,
  takesWebhook,
  webhookSubscription,
  type DeliveryLimits,
  type DeliveryOutcome,
  type DeliveryReport,
  type JobEvent,
  type WebhookCall,
  type WebhookDelivererOptions,
  type WebhookSubscription,
} from "./deliveries.js";
export {
  askedFindings,
  describeFinding,
  jobEventsOf,
  orderFindings,
  judgeJobCalls,
  methodProblem,
  type JobCall,
  type JobConcern,
  type JobEvents,
  type JobFinding,
  type JobJudgeOptions,
  type JobToJudge,
} from "./job-judgement.js";
export {
  registerApi,
  listApis,
  getApi,
  loadBundle,
  bundleFiles,
  type ApiName,
  type ApiDefinition,
  type BundleSource,
} from "./registry.js";
export { ContractErrors, refusal } from "./refusals.js";
export { DEFAULT_LINGER, answerParserError, answerParserErrors, createEdgeServer, lingerOnClose, listen, parserProblem, rawHttpAnswer, type LingerBounds, type ServerLimits } from "./http-edge.js";
export {
  KnownDifferences,
  KnownDifferencesError,
  KNOWN_DIFFERENCES_FILE_LIMIT,
  loadKnownDifferences,
  parseKnownDifferences,
  type KnownDifference,
} from "./known-differences.js";
export * from "./faults/index.js";
export {
  CoverageRecorder,
  coverageSchema,
  formatCoverage,
  type Coverage,
  type CoverageTally,
  type CoverageTotals,
  type MemberCoverage,
  type OperationCoverage,
  type SentRequest,
  type StatusCoverage,
} from "./coverage.js";
export { FixturesFormatError, fixturesSchema, parseFixtures, PLACEHOLDER, type Fixtures, type EntitlementsFixtures, type WebdataFixtures, type ApiKeys } from "./fixtures.js";
