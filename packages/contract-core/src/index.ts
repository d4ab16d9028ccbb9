export {
  OpenApiValidators,
  errorPath,
  fieldErrors,
  usefulErrors,
  matchMediaType,
  isJsonMediaType,
  ERROR_LIMIT,
  FULL_REPORT_NODE_LIMIT,
  type ValidatorOptions,
  type OperationInfo,
  type Parameter,
  type RequestPart,
  type RequestParts,
  type FieldError,
  type RequestValidators,
  type DocumentedResponse,
  type WebhookInfo,
  type WebhookValidators,
  type Delivery,
  type DeliveryOptions,
  type DeliveryVerdict,
} from "./validators.js";
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
export { escapePointer, unescapePointer, resolvePointer, follow, isObject, type JsonObject } from "./pointer.js";
export {
  HTTP_METHODS,
  documentedResponseFor,
  walkOperations,
  walkOperation,
  type WalkedOperation,
  type WalkedParameter,
  type WalkedRequestBody,
  type WalkedResponse,
  type MediaEntry,
  type NamedExample,
} from "./walk.js";
export { X_RULE_KINDS, acceptsUrl, hasSchemalessObject, totalWaitMs, utf16Length, type UrlRule, type XRule } from "./x-rules.js";
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
export {
  entitlementsWording,
  webdataWording,
  describeFieldError,
  fieldName,
  truncate,
  MESSAGE_LIMIT,
  ERROR_BODY_LIMIT,
  type Problem,
  type ErrorReply,
  type ErrorWording,
  type WordingContext,
} from "./wording.js";
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
