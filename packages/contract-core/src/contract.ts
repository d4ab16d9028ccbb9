/**
 * What the contract says, apart from how servers behave: the validators, the operation and webhook
 * walkers, JSON pointers, the x-rules and each API's error wording. This entry imports no Node
 * built-in, so a browser (the docs console) judges with the same code as the kit and the proxy.
 * The package's main entry re-exports it beside the server machinery and the file loaders.
 */
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
export { signWebhook, walkWebhooks, type WalkedWebhook, type WebhookSignatureScheme } from "./webhooks.js";
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
export { X_RULE_KINDS, acceptsUrl, hasSchemalessObject, pathRegexProblem, totalWaitMs, utf16Length, type UrlRule, type XRule } from "./x-rules.js";
export {
  entitlementsWording,
  webdataWording,
  describeFieldError,
  fieldMessage,
  fieldName,
  truncate,
  MESSAGE_LIMIT,
  ERROR_BODY_LIMIT,
  type Problem,
  type ErrorReply,
  type ErrorWording,
  type WordingContext,
} from "./wording.js";
export {
  ExchangeJudge,
  describeProblem,
  pointerOf,
  problemsOf,
  queryOf,
  summarizeAnswer,
  summarizeKeptAnswer,
  summarizeProblems,
  type AnswerJudgement,
  type AnswerPlan,
  type AnswerToJudge,
  type ContractProblem,
  type HeaderValues,
  type ProblemPart,
  type RequestJudgement,
  type RequestToJudge,
} from "./judgement.js";
export { counted } from "./counted.js";
export { authorizationProblem, type UnauthorizedReason } from "./authorization.js";
export { redactor, REDACTED } from "./redact.js";
export { withDefaultScheme } from "./default-scheme.js";
