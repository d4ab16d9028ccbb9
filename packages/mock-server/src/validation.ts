import type { FieldError, RequestParts } from "@api-contracts/contract-core";
import type { Violation } from "./errors.js";

/** Checks one request against its operation; an empty list means the request is valid. */
export type RequestValidator = (parts: RequestParts) => Violation[];

/** A request error as this mock reports it: located below the request part, allowed values spelled out. */
export function toViolation(error: FieldError): Violation {
  const allowed = Array.isArray(error.params.allowedValues) ? `: ${error.params.allowedValues.join(", ")}` : "";
  return { location: [error.in, ...error.path.map(String)], keyword: error.keyword, message: `${error.message}${allowed}` };
}
