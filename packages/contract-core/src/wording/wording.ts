import type { FieldError } from "../validation/validators.js";

/** Why a request is refused, in terms every API can word its own way. */
export type Problem =
  /** The request broke the contract; `errors` are the problems found (at most about 20). */
  | { kind: "invalid"; errors: FieldError[] }
  /** No usable API key: no `Authorization`, `Bearer` with nothing after it, not `Bearer <key>`, or a key the server does not know. */
  | { kind: "unauthorized"; reason: "missing" | "empty" | "malformed" | "unknown-key" }
  /** No operation at this path, or none for this method (`allowed` lists the methods that are). */
  | { kind: "not-found"; method: string; path: string; allowed?: string[] }
  | { kind: "malformed-json" }
  | { kind: "unsupported-media-type"; received: string; supported: string[] }
  /** A request the server cannot serve for a reason it states (for instance a `Prefer` naming nothing documented). */
  | { kind: "bad-request"; message: string }
  | { kind: "too-large"; limit: number }
  /** The request (headers or body) did not arrive in time. */
  | { kind: "timeout" }
  /** An upstream server broke the contract or could not be reached. */
  | { kind: "bad-gateway"; message: string }
  /** A defect on the server's side; its details are never shown to the client. */
  | { kind: "internal" };

export interface ErrorReply {
  status: number;
  body: unknown;
}

export interface WordingContext {
  /** For APIs whose error bodies name the environment of the key: `sandbox` (default) or `live`. */
  env?: string;
}

/** How one API turns a refusal into its documented error body. */
export interface ErrorWording {
  word(problem: Problem, context?: WordingContext): ErrorReply;
  /**
   * Whether a documented example at the reply's status says the problem better than the built
   * body (its exact words from the description), for servers that can look examples up.
   */
  prefersExample?(problem: Problem, example: unknown): boolean;
}

/** Longest human-readable message in an error body; longer ones are cut and marked. */
export const MESSAGE_LIMIT = 1_000;
/** Longest member name or path shown in a message. */
const NAME_LIMIT = 100;
/** Deepest member path shown. */
const PATH_DEPTH_LIMIT = 16;
/** Error bodies stay below this many bytes of JSON. */
export const ERROR_BODY_LIMIT = 64 * 1024;

export function truncate(text: string, limit = MESSAGE_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

function shortPath(path: Array<string | number>): Array<string | number> {
  const kept = path.slice(0, PATH_DEPTH_LIMIT).map((part) => (typeof part === "string" ? truncate(part, NAME_LIMIT) : part));
  if (path.length > PATH_DEPTH_LIMIT) kept.push("…");
  return kept;
}

/** A member path as people write it: `lock.expires_at`, `scrapeOptions.formats[0]`. */
function fieldName(error: FieldError): string {
  const text = shortPath(error.path).reduce<string>((acc, part) => (typeof part === "number" ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), "");
  return text || (error.in === "path" ? "path" : error.in);
}

const isUnknownMember = (e: FieldError) => e.keyword === "additionalProperties" || e.keyword === "unevaluatedProperties";
const showValue = (value: unknown) => truncate(JSON.stringify(value) ?? String(value), NAME_LIMIT);

/**
 * What is wrong with the member at fault, without naming it: `is required`, `must be integer`. The
 * one wording of a validation error: error bodies put the member's name before it
 * ({@link describeFieldError}), judgements its JSON pointer (`body/limit must be integer`).
 */
export function fieldMessage(error: FieldError): string {
  const params = error.params;
  switch (error.keyword) {
    case "required":
      return "is required";
    case "additionalProperties":
    case "unevaluatedProperties":
      return "is not a documented member";
    case "enum":
      return `must be one of ${(Array.isArray(params.allowedValues) ? params.allowedValues : []).map(showValue).join(", ")}`;
    case "const":
      return `must be ${showValue(params.allowedValue)}`;
    case "signature":
      // The reason's name (`invalid_signature`) is what a receiver's logs and the scheme's libraries say.
      return typeof params.reason === "string" ? `${params.reason}: ${error.message}` : error.message;
    default:
      if (Array.isArray(params.exactlyOneOf)) return `exactly one of ${params.exactlyOneOf.join(", ")} is required`;
      if (Array.isArray(params.notTogether)) return `${params.notTogether.join(", ")} must not be sent together with the other members given`;
      return error.message.trim() || "is not valid";
  }
}

/** One sentence that names the member at fault: `feature_id is required`, `limit: must be integer`. */
export function describeFieldError(error: FieldError): string {
  const field = fieldName(error);
  const message = fieldMessage(error);
  if (error.keyword === "required" || isUnknownMember(error)) return `${field} ${message}`;
  if (Array.isArray(error.params.notTogether)) {
    return `${error.params.notTogether.join(", ")} must not be sent${error.path.length > 0 ? ` in ${field}` : ""} together with the other members given`;
  }
  if (Array.isArray(error.params.exactlyOneOf) && error.path.length === 0) return message;
  return `${field}: ${message}`;
}

function describeAll(errors: FieldError[]): string {
  return truncate([...new Set(errors.map(describeFieldError))].join("; "));
}

function notFoundMessage(problem: Extract<Problem, { kind: "not-found" }>): string {
  const where = truncate(problem.path.split("?")[0]!, 200);
  const method = truncate(problem.method, 20);
  if (problem.allowed && problem.allowed.length > 0) return `Method ${method} is not allowed on ${where}; allowed: ${problem.allowed.join(", ")}`;
  return `No operation serves ${method} ${where}`;
}

/** The Entitlements API: every error is `{ message, code, env }`. */
export const entitlementsWording: ErrorWording = {
  word(problem, context = {}) {
    const env = context.env ?? "sandbox";
    const reply = (status: number, code: string, message: string): ErrorReply => ({ status, body: { message: truncate(message), code, env } });
    switch (problem.kind) {
      case "invalid": {
        const versionOnly = problem.errors.length > 0 && problem.errors.every((e) => e.in === "header" && e.path[0] === "x-api-version");
        if (versionOnly) return reply(400, "invalid_api_version", `Invalid API version: ${describeAll(problem.errors)}`);
        return reply(400, "invalid_inputs", `Invalid inputs: ${describeAll(problem.errors)}`);
      }
      case "unauthorized":
        return problem.reason === "missing" || problem.reason === "empty"
          ? reply(401, "no_secret_key", "Secret key not found in Authorization header")
          : reply(401, "invalid_secret_key", "Invalid secret key");
      case "not-found":
        // The error codes name no unknown route; the request itself is what is wrong.
        return reply(404, "invalid_request", notFoundMessage(problem));
      case "malformed-json":
        return reply(400, "invalid_inputs", "Invalid inputs: the request body is not valid JSON");
      case "unsupported-media-type":
        return reply(400, "invalid_inputs", `Invalid inputs: content type '${truncate(problem.received, NAME_LIMIT)}' is not supported; send ${problem.supported.join(" or ")}`);
      case "bad-request":
        return reply(400, "invalid_request", problem.message);
      case "too-large":
        return reply(413, "payload_too_large", `The request body is larger than ${problem.limit} bytes`);
      case "timeout":
        return reply(408, "request_timeout", "The request did not arrive in time");
      case "bad-gateway":
        return reply(502, "internal_error", `Bad gateway: ${problem.message}`);
      case "internal":
        return reply(500, "internal_error", "An unexpected error occurred");
    }
  },
};

/** The issue codes the Web Data API documents for `details[].code`, by JSON Schema keyword. */
const issueCodes: Record<string, string> = {
  required: "invalid_type",
  type: "invalid_type",
  additionalProperties: "unrecognized_keys",
  unevaluatedProperties: "unrecognized_keys",
  enum: "invalid_value",
  const: "invalid_value",
  minimum: "too_small",
  exclusiveMinimum: "too_small",
  minLength: "too_small",
  minItems: "too_small",
  minProperties: "too_small",
  maximum: "too_big",
  exclusiveMaximum: "too_big",
  maxLength: "too_big",
  maxItems: "too_big",
  maxProperties: "too_big",
  format: "invalid_format",
  pattern: "invalid_format",
};

const UNRECOGNIZED_KEY = "Unrecognized key in body -- please review the v2 API documentation for request body changes";

/** One zod-style issue, as the Web Data API reports validation problems. */
function issue(error: FieldError): Record<string, unknown> {
  const code = issueCodes[error.keyword] ?? "custom";
  const path = shortPath(error.path);
  const entry: Record<string, unknown> = { code, path, message: describeFieldError(error) };
  if (code === "unrecognized_keys") {
    entry.path = path.slice(0, -1);
    const keys = path.slice(-1).map(String);
    entry.keys = keys;
    // The wording of the description's own example of this issue.
    entry.message = `Unrecognized key: ${JSON.stringify(keys[0] ?? "")}`;
  }
  if (error.keyword === "type" && typeof error.params.type === "string") entry.expected = error.params.type;
  return entry;
}

function validationBody(error: string, details: Array<Record<string, unknown>>): Record<string, unknown> {
  const body = { success: false, code: "BAD_REQUEST", error, details };
  // Twenty issues with messages at their limit stay far below it; this is the last guard.
  while (details.length > 1 && JSON.stringify(body).length > ERROR_BODY_LIMIT) details.pop();
  return body;
}

/** The Web Data API: `{ success: false, error }`, and for validation a `BAD_REQUEST` with zod-style `details`. */
export const webdataWording: ErrorWording = {
  word(problem) {
    const reply = (status: number, error: string): ErrorReply => ({ status, body: { success: false, error: truncate(error) } });
    const custom = (message: string): ErrorReply => ({ status: 400, body: validationBody("Bad Request", [{ code: "custom", path: [], message: truncate(message) }]) });
    switch (problem.kind) {
      case "invalid": {
        const unknownMember = problem.errors.some((e) => e.in === "body" && isUnknownMember(e));
        const details = problem.errors.map(issue);
        if (details.length === 0) details.push({ code: "custom", path: [], message: "Bad Request" });
        return { status: 400, body: validationBody(unknownMember ? UNRECOGNIZED_KEY : "Bad Request", details) };
      }
      case "unauthorized":
        if (problem.reason === "missing") return reply(401, "Unauthorized");
        return reply(401, problem.reason === "empty" ? "Unauthorized: Token missing" : "Unauthorized: Invalid token");
      case "not-found":
        return reply(404, notFoundMessage(problem));
      case "malformed-json":
        return { status: 400, body: { success: false, code: "BAD_REQUEST_INVALID_JSON", error: "Bad request, malformed JSON" } };
      case "unsupported-media-type":
        return custom(`Content type '${truncate(problem.received, NAME_LIMIT)}' is not supported; send ${problem.supported.join(" or ")}`);
      case "bad-request":
        return custom(problem.message);
      case "too-large":
        return reply(413, "Request body is too large");
      case "timeout":
        return reply(408, "Request timed out");
      case "bad-gateway":
        return reply(502, `Bad gateway: ${problem.message}`);
      case "internal":
        return reply(500, "An unexpected error occurred on the server.");
    }
  },
  prefersExample(problem, example) {
    // A malformed id in the path has its own documented sentence on some operations.
    if (problem.kind !== "invalid" || !problem.errors.every((e) => e.in === "path")) return false;
    const error = typeof example === "object" && example !== null ? (example as { error?: unknown }).error : undefined;
    return typeof error === "string" && /\bid\b/i.test(error) && /format|uuid/i.test(error);
  },
};
