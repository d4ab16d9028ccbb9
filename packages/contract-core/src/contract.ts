/**
 * What the contract says, apart from how servers behave (the `./server` entry's). It imports no Node
 * built-in, so a browser (the docs console) decides and judges with the same code as the servers.
 */
export * from "./wire/index.js";
export {
  OpenApiValidators,
  errorPath,
  fieldErrors,
  usefulErrors,
  ERROR_LIMIT,
  FULL_REPORT_NODE_LIMIT,
  MISSING_BODY,
  type ValidatorOptions,
  type OperationInfo,
  type Parameter,
  type ParameterReading,
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
} from "./validation/validators.js";
export { signWebhook, webhookSignatureScheme, type WebhookSignatureScheme } from "./webhooks/signature.js";
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
export { acceptsUrl, hasSchemalessObject, pathRegexProblem, totalWaitMs, withDefaultScheme, type UrlRule, type XRule } from "./validation/x-rules.js";
export {
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
export type { ApiFacts } from "./generated/api-facts.js";
export {
  problemsOf,
  type ContractProblem,
  type Decision,
  type DecideOptions,
  type IncomingRequest,
  type ProblemPart,
  type ReadRequest,
} from "./judgement/decision.js";
export { ApiContract, type ApiEntry, type GivenAnswer, type OperationKey } from "./judgement/api-contract.js";
export {
  ExchangeJudge,
  describeProblem,
  summarizeAnswer,
  summarizeKeptAnswer,
  summarizeProblems,
  type AnswerJudgement,
  type AnswerPlan,
  type AnswerToJudge,
} from "./judgement/exchange.js";
export { authorizationProblem, type UnauthorizedReason } from "./judgement/authorization.js";
export { counted } from "./wording/counted.js";
export { redactor, REDACTED } from "./wording/redact.js";
