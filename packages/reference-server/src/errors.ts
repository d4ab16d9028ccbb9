/**
 * The wording of every error answer of both APIs, in one place: each API's {@link Dialect}.
 * Handlers and stores decide that a request fails; this module decides what the body says.
 */
import type { ErrorObject } from "ajv";
import type { paths as EntitlementsPaths } from "@api-contracts/entitlements-client";
import type { paths as WebdataPaths } from "@api-contracts/webdata-client";
import { bearerToken, type Answer, type Dialect, type RequestPart } from "./http.js";
import { clip, describeError, errorPath, reportedErrors } from "./spec.js";
import type { AnswerOf } from "./typing.js";

type EntitlementsErrorBody = Extract<AnswerOf<EntitlementsPaths["/v1/balances.check"]["post"]>, { status: 400 }>["body"];
/** The documented codes, plus those of the 408 and 413 answers every operation documents. */
export type EntitlementsErrorCode = EntitlementsErrorBody["code"] | "payload_too_large" | "request_timeout";
export type EntitlementsEnv = EntitlementsErrorBody["env"];

/** The entitlements error body. */
export function entitlementsError(status: number, code: EntitlementsErrorCode, message: string, env: EntitlementsEnv): { status: number; body: EntitlementsErrorBody } {
  return { status, body: { message: clip(message, 1000), code: code as EntitlementsErrorBody["code"], env } };
}

export function entitlementsDialect(env: EntitlementsEnv, apiKey: string): Dialect {
  const error = (status: number, code: EntitlementsErrorCode, message: string): Answer => entitlementsError(status, code, message, env);
  return {
    authenticate(authorization) {
      const token = bearerToken(authorization);
      if (!token) return error(401, "no_secret_key", "Secret key not found in Authorization header");
      if (token !== apiKey) return error(401, "invalid_secret_key", "Invalid secret key");
      return null;
    },
    invalid(part, errors) {
      if (part === "headers") return error(400, "invalid_api_version", "Invalid x-api-version header: expected major.minor.patch, for example 2.4.0");
      const messages = reportedErrors(errors).map((e) => describeError(e, part));
      return error(400, "invalid_inputs", `Invalid ${part}: ${[...new Set(messages)].join("; ")}`);
    },
    malformedJson: () => error(400, "invalid_inputs", "Invalid body: the request body is not valid JSON"),
    badRequest: (reason) => error(400, "invalid_request", `Invalid request: ${reason}`),
    tooLarge: () => error(413, "payload_too_large", "The request body is too large"),
    timeout: () => error(408, "request_timeout", "The request was not received in time"),
    notFound: (method, url) => error(404, "invalid_request", `No operation at ${method} ${clip(url.split("?")[0]!)}`),
    internal: () => error(500, "internal_error", "Internal server error"),
  };
}

type WebdataValidationError = Extract<AnswerOf<WebdataPaths["/v2/crawl"]["post"]>, { status: 400 }>["body"];
type Issue = Extract<WebdataValidationError, { code: "BAD_REQUEST" }>["details"][number];

const UNRECOGNIZED_KEY = "Unrecognized key in body -- please review the v2 API documentation for request body changes";

/** Translates one ajv error into the zod-style issue the service reports. */
function issue(error: ErrorObject): Issue {
  const params = error.params as Record<string, unknown>;
  const path = errorPath(error);
  switch (error.keyword) {
    case "required":
      return { code: "invalid_type", path, message: "Invalid input: expected a value, received undefined" };
    case "additionalProperties": {
      const key = clip(String(params.additionalProperty));
      return { code: "unrecognized_keys", keys: [key], path: path.slice(0, -1), message: `Unrecognized key: "${key}"` };
    }
    case "type":
      return { code: "invalid_type", expected: String(params.type), path, message: `Invalid input: expected ${String(params.type)}` };
    case "enum":
      return { code: "invalid_value", path, message: `Invalid option: expected one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join("|")}` };
    case "const":
      return { code: "invalid_value", path, message: `Invalid input: expected ${JSON.stringify(params.allowedValue)}` };
    case "format":
    case "pattern":
      return { code: "invalid_format", path, message: `Invalid ${String(params.format ?? "format")}` };
    case "maximum":
    case "exclusiveMaximum":
    case "maxLength":
    case "maxItems":
      return { code: "too_big", path, message: `Too big: ${error.message ?? "value is too big"}` };
    case "minimum":
    case "exclusiveMinimum":
    case "minLength":
    case "minItems":
      return { code: "too_small", path, message: `Too small: ${error.message ?? "value is too small"}` };
    default:
      return { code: "custom", path, message: error.message ?? "Invalid input" };
  }
}

export function webdataDialect(apiKey: string): Dialect {
  const failure = (status: number, error: string): Answer => ({ status, body: { success: false, error } });
  /** The validation shape: it also satisfies every other 400 body the Web Data API documents. */
  const validation = (error: string, details: Issue[]): Answer => {
    const body: WebdataValidationError = { success: false, code: "BAD_REQUEST", error, details };
    return { status: 400, body };
  };
  return {
    authenticate(authorization) {
      if (authorization === undefined || authorization.trim() === "") return failure(401, "Unauthorized");
      const token = bearerToken(authorization);
      if (token === null) return failure(401, "Unauthorized");
      if (token === "") return failure(401, "Unauthorized: Token missing");
      if (token !== apiKey) return failure(401, "Unauthorized: Invalid token");
      return null;
    },
    invalid(part: RequestPart, errors, operationId) {
      if (operationId === "cancelCrawl" && part === "params") return failure(400, "Invalid job ID format. Job ID must be a valid UUID.");
      const useful = reportedErrors(errors);
      const details = useful.map(issue);
      const unknownMember = part === "body" && useful.some((e) => e.keyword === "additionalProperties");
      return validation(unknownMember ? UNRECOGNIZED_KEY : "Bad Request", details.length > 0 ? details : [{ code: "custom", path: [], message: "Bad Request" }]);
    },
    malformedJson: () => ({ status: 400, body: { success: false, code: "BAD_REQUEST_INVALID_JSON", error: "Bad request, malformed JSON" } }),
    badRequest: (reason) => validation("Bad Request", [{ code: "custom", path: [], message: `Invalid request: ${reason}` }]),
    tooLarge: () => failure(413, "Request body is too large"),
    timeout: () => failure(408, "Request timeout: the request was not received in time"),
    notFound: (method, url) => failure(404, `No operation at ${method} ${clip(url.split("?")[0]!)}`),
    internal: () => failure(500, "An unexpected error occurred on the server."),
  };
}
