/**
 * What the contract says, apart from how servers behave: the validators, the operation and webhook
 * walkers, JSON pointers, the x-rules and each API's error wording. This entry imports no Node
 * built-in, so a browser (the docs console) judges with the same code as the kit and the proxy.
 * The package's main entry re-exports it beside the registry and the file formats; how servers
 * behave is the `./server` entry's.
 */
export {
  OpenApiValidators,
  errorPath,
  fieldErrors,
  usefulErrors,
  matchMediaType,
  isJsonMediaType,
  normalizeHeaders,
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
  type HeaderValues,
} from "./validation/validators.js";
export { signWebhook, type WebhookSignatureScheme } from "./webhooks/signature.js";
export { escapePointer, unescapePointer, resolvePointer, follow, isObject, type JsonObject } from "./document/pointer.js";
export {
  HTTP_METHODS,
  walkOperations,
  walkWebhooks,
  type WalkedOperation,
  type WalkedWebhook,
  type WalkedParameter,
  type WalkedRequestBody,
  type WalkedResponse,
  type MediaEntry,
  type NamedExample,
} from "./document/walk.js";
export { acceptsUrl, parseUrl, hasSchemalessObject, pathRegexProblem, totalWaitMs, withDefaultScheme, type UrlRule, type XRule } from "./validation/x-rules.js";
export {
  entitlementsWording,
  webdataWording,
  describeFieldError,
  fieldMessage,
  truncate,
  MESSAGE_LIMIT,
  ERROR_BODY_LIMIT,
  type Problem,
  type ErrorReply,
  type ErrorWording,
  type WordingContext,
} from "./wording/wording.js";
export {
  ExchangeJudge,
  describeProblem,
  problemsOf,
  queryOf,
  summarizeAnswer,
  summarizeKeptAnswer,
  summarizeProblems,
  type AnswerJudgement,
  type AnswerPlan,
  type AnswerToJudge,
  type ContractProblem,
  type ProblemPart,
  type RequestJudgement,
  type RequestToJudge,
} from "./judgement/exchange.js";
export { authorizationProblem, type UnauthorizedReason } from "./judgement/authorization.js";
export { readAnswerBody } from "./judgement/answer-body.js";
export { counted } from "./wording/counted.js";
export { redactor, REDACTED } from "./wording/redact.js";
