export {
  OpenApiValidators,
  loadBundle,
  errorPath,
  fieldErrors,
  matchMediaType,
  isJsonMediaType,
  HTTP_METHODS,
  type OperationInfo,
  type Parameter,
  type RequestPart,
  type RequestParts,
  type FieldError,
  type RequestValidators,
  type DocumentedResponse,
} from "./validators.js";
export { escapePointer, unescapePointer, resolvePointer, follow, isObject, type JsonObject } from "./pointer.js";
