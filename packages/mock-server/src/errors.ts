import type { ApiDescription, DocumentedError, Service } from "./spec.js";

/** A problem found in one part of a request, as reported to the client. */
export interface Violation {
  /** Where the problem is: `["body", "limit"]`, `["query", "status"]`, `["header", "authorization"]`. */
  location: string[];
  message: string;
  /** The JSON Schema keyword that failed, when the problem came from schema validation. */
  keyword?: string;
}

/** Why a request is refused before any example is served. */
export type Failure =
  | { kind: "route"; status: 404 | 405; method: string; path: string }
  | { kind: "auth"; problem: "missing" | "empty" | "malformed" }
  | { kind: "json"; message: string }
  | { kind: "too-large"; limit: number }
  | { kind: "media-type"; received: string; supported: string[] }
  | { kind: "invalid"; violations: Violation[] }
  | { kind: "prefer"; message: string }
  | { kind: "internal"; message: string };

type Json = Record<string, unknown>;
type Predicate = (body: Json) => boolean;

/** How one API spells its errors: which documented status and example fit a failure, and how to fill in the specifics. */
interface Dialect {
  statuses(failure: Failure): number[];
  preferred(failure: Failure): Predicate[];
  decorate(failure: Failure, body: Json): Json;
}

const hasCode =
  (...codes: string[]): Predicate =>
  (body) =>
    codes.includes(body.code as string);
const hasError =
  (test: (text: string) => boolean): Predicate =>
  (body) =>
    typeof body.error === "string" && test(body.error);

/** Turns a violation into a sentence that names the offending field: `limit: must be integer`. */
export function describeViolation(violation: Violation): string {
  const [where = "request", ...rest] = violation.location;
  const field = rest.length > 0 ? rest.join(".") : where;
  if (violation.keyword === "required") return `${field} is required`;
  if (violation.keyword === "additionalProperties" || violation.keyword === "unevaluatedProperties") {
    return `${field} is not a recognized member of the ${where}`;
  }
  return `${field}: ${violation.message.trim() || "is not valid"}`;
}

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

function issue(violation: Violation): Json {
  const code = issueCodes[violation.keyword ?? ""] ?? "custom";
  const path = violation.location.slice(1);
  const entry: Json = { code, path, message: describeViolation(violation) };
  if (code === "unrecognized_keys") {
    entry.path = path.slice(0, -1);
    entry.keys = path.slice(-1);
  }
  return entry;
}

const unknownMembersOnly = (failure: Failure) =>
  failure.kind === "invalid" &&
  failure.violations.every((v) => v.keyword === "additionalProperties" || v.keyword === "unevaluatedProperties");

function failureMessage(failure: Failure): string {
  switch (failure.kind) {
    case "route":
      return failure.status === 405
        ? `Method ${failure.method} is not allowed on ${failure.path}`
        : `No operation serves ${failure.method} ${failure.path}`;
    case "auth":
      return failure.problem === "malformed"
        ? "Authorization header is not of the form 'Bearer <key>'"
        : "Secret key not found in Authorization header";
    case "json":
      return `Malformed JSON body: ${failure.message}`;
    case "too-large":
      return `Request body is larger than ${failure.limit} bytes`;
    case "media-type":
      return `Unsupported content type '${failure.received}'; send ${failure.supported.join(" or ")}`;
    case "invalid":
      return failure.violations.map(describeViolation).join("; ");
    case "prefer":
    case "internal":
      return failure.message;
  }
}

type StatusTable = Partial<Record<Failure["kind"], number[]>>;
const sharedStatuses: StatusTable = { auth: [401], internal: [500] };

const entitlements: Dialect = {
  // The error schema has no code for an unknown route, so everything else is an invalid request.
  statuses: (failure) => sharedStatuses[failure.kind] ?? [400],
  preferred(failure) {
    switch (failure.kind) {
      case "auth":
        return failure.problem === "malformed" ? [hasCode("invalid_secret_key")] : [hasCode("no_secret_key")];
      case "route":
      case "prefer":
        return [hasCode("invalid_request")];
      case "invalid": {
        const headerOnly = failure.violations.every((v) => v.location[0] === "header");
        return headerOnly ? [hasCode("invalid_api_version"), hasCode("invalid_inputs")] : [hasCode("invalid_inputs")];
      }
      case "internal":
        return [hasCode("internal_error")];
      default:
        return [hasCode("invalid_inputs")];
    }
  },
  decorate(failure, body) {
    const message =
      failure.kind === "invalid"
        ? `Invalid inputs: ${failureMessage(failure)}`
        : failure.kind === "auth" && failure.problem !== "malformed"
          ? (body.message as string)
          : failureMessage(failure);
    return { ...body, message };
  },
};

const detailed: Predicate = (body) => body.code === "BAD_REQUEST" && Array.isArray(body.details);
const plainBadRequest: Predicate = (body) => detailed(body) && body.error === "Bad Request";

const webdataStatuses: StatusTable = { ...sharedStatuses, "too-large": [413, 400], "media-type": [415, 400] };

const webdata: Dialect = {
  statuses(failure) {
    if (failure.kind === "route") return failure.status === 405 ? [405, 404] : [404];
    return webdataStatuses[failure.kind] ?? [400];
  },
  preferred(failure) {
    switch (failure.kind) {
      case "auth":
        if (failure.problem === "missing") return [hasError((e) => e === "Unauthorized")];
        if (failure.problem === "empty") return [hasError((e) => /token missing/i.test(e))];
        return [hasError((e) => /invalid token/i.test(e))];
      case "json":
        return [hasCode("BAD_REQUEST_INVALID_JSON")];
      case "route":
        return [(body) => body.success === false && typeof body.error === "string"];
      case "invalid": {
        const pathOnly = failure.violations.every((v) => v.location[0] === "path");
        if (unknownMembersOnly(failure)) return [hasError((e) => /unrecognized key/i.test(e)), plainBadRequest, detailed];
        return pathOnly
          ? [hasError((e) => /id/i.test(e) && /format|uuid/i.test(e)), plainBadRequest, detailed]
          : [plainBadRequest, detailed];
      }
      case "too-large":
        return [hasError((e) => /too large/i.test(e)), plainBadRequest, detailed];
      default:
        return [plainBadRequest, detailed];
    }
  },
  decorate(failure, body) {
    const next: Json = { ...body };
    if (Array.isArray(body.details)) {
      next.details =
        failure.kind === "invalid" ? failure.violations.map(issue) : [{ code: "custom", path: [], message: failureMessage(failure) }];
    }
    if (failure.kind === "route") next.error = failureMessage(failure);
    return next;
  },
};

const dialects: Record<Service, Dialect> = { entitlements, webdata };

function matching(entries: DocumentedError[], statuses: number[], predicates: Predicate[]) {
  for (const status of statuses) {
    const withStatus = entries.filter((e) => e.status === status && e.examples.length > 0);
    for (const predicate of predicates) {
      for (const entry of withStatus) {
        const example = entry.examples.find((x) => x.value && typeof x.value === "object" && predicate(x.value as Json));
        if (example) return { entry, example: example.value as Json };
      }
    }
  }
  return undefined;
}

function firstOf(entries: DocumentedError[], statuses: number[]) {
  for (const status of statuses) {
    const entry = entries.find((e) => e.status === status && e.examples.length > 0);
    if (entry) return { entry, example: entry.examples[0]!.value as Json };
  }
  return undefined;
}

export interface ErrorAnswer {
  status: number;
  body: unknown;
}

/**
 * Chooses the documented error answer for a failure: the operation's own error responses first,
 * then any of the API's, and within them the named example that matches the failure. The
 * specifics (field names, messages) are filled in only when the result still validates against
 * the documented schema; otherwise the example is served as written.
 */
export function errorAnswer(api: ApiDescription, operationKey: string | undefined, failure: Failure): ErrorAnswer {
  const dialect = dialects[api.service];
  const statuses = dialect.statuses(failure);
  const predicates = dialect.preferred(failure);
  const own = (operationKey ? api.errorsByOperation.get(operationKey) : undefined) ?? [];
  const chosen =
    matching(own, statuses, predicates) ??
    matching(api.allErrors, statuses, predicates) ??
    firstOf(own, statuses) ??
    firstOf(api.allErrors, statuses) ??
    // Only reachable with a description that documents none of these statuses.
    firstOf(api.allErrors, [400, 404, 401, 500]);
  if (!chosen) throw new Error(`${api.service} documents no error responses with examples`);
  const decorated = dialect.decorate(failure, structuredClone(chosen.example));
  const body = chosen.entry.validate(decorated) ? decorated : chosen.example;
  return { status: chosen.entry.status, body };
}
