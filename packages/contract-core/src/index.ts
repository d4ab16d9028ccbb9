// What the contract says (the `./contract` entry, which a browser runs too), the registry of APIs
// and the file formats that cross packages. How servers behave is the `./server` entry's.
export * from "./contract.js";
export { checkWebhookSignature, type SignOptions, type SignatureFailure, type SignatureCheck, type SignatureCheckOptions } from "@api-contracts/webhook-signatures";
export {
  DELIVERY_ORDER_GRACE_MS,
  subscribesTo,
  subscriptionMismatches,
  takesWebhook,
  webhookSubscription,
  type SubscriptionMismatch,
  type WebhookSubscription,
} from "./webhooks/subscriptions.js";
export {
  askedFindings,
  describeFinding,
  jobEventsOf,
  type JobConventions,
  orderFindings,
  judgeJobCalls,
  methodProblem,
  type JobCall,
  type JobConcern,
  type JobEvents,
  type JobFinding,
  type JobJudgeOptions,
  type JobToJudge,
} from "./judgement/jobs.js";
export { API_DIRS_VARIABLE, registerApi, readApiFolder, listApis, getApi, loadBundle, bundleFiles, contractOf, type ApiName, type ApiDefinition, type BundleSource } from "./registry/registry.js";
export { documentedAnswer, type InjectedAnswer } from "./judgement/answers.js";
export {
  FAULTS_FILE_LIMIT,
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
} from "./formats/faults.js";
export { KnownDifferences, KnownDifferencesError, KNOWN_DIFFERENCES_FILE_LIMIT, loadKnownDifferences, parseKnownDifferences, type KnownDifference } from "./formats/known-differences.js";
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
} from "./formats/coverage.js";
export { FixturesFormatError, fixturesSchema, parseFixtures, PLACEHOLDER, type Fixtures, type EntitlementsFixtures, type WebdataFixtures, type ApiKeys } from "./formats/fixtures.js";
