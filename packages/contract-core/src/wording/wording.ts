// How a refusal becomes an API's documented error answer. The words, codes, statuses and shapes are
// each API's facts (`errors` of spec/<api>/api.yaml); this module only fills them in, so that every
// server and judge answers a refusal the same way, and a new API brings its wording as data.
import type { ApiFacts } from "../generated/api-facts.js";
import type { FieldError } from "../validation/validators.js";

/** Why a request is refused, in terms every API words its own way. */
export type Problem =
  /**
   * The request broke the contract; `errors` are the problems found (at most about 20). `refusal`
   * names the API's own refusal for the check that found them (`invalid-api-version`), `value` the
   * value of the parameter at fault.
   */
  | { kind: "invalid"; errors: FieldError[]; refusal?: string; value?: string }
  /** No usable API key: no `Authorization`, `Bearer` with nothing after it, not `Bearer <key>`, or a key the server does not know. */
  | { kind: "unauthorized"; reason: "missing" | "empty" | "malformed" | "wrong-prefix" | "unknown-key" }
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

/** Values of the API's own placeholders for one answer (`env`: the environment of the key); the facts give the defaults. */
export type WordingContext = Record<string, string | undefined>;

/** How one API turns a refusal into its documented error body. */
export interface ErrorWording {
  word(problem: Problem, context?: WordingContext): ErrorReply;
  /** The name of the refusal a problem is worded by (`invalid-unknown-member`, `unauthorized-empty`). */
  refusalOf(problem: Problem): string;
}

/** Longest human-readable message in an error body; longer ones are cut and marked. */
export const MESSAGE_LIMIT = 1_000;
/** Longest member name, path, media type or value shown in a message. */
const NAME_LIMIT = 100;
/** Deepest member path shown. */
const PATH_DEPTH_LIMIT = 16;
/** Error bodies stay below this many bytes of JSON. */
export const ERROR_BODY_LIMIT = 64 * 1024;

export function truncate(text: string, limit = MESSAGE_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

function shortPath(path: ReadonlyArray<string | number>): Array<string | number> {
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

/**
 * One problem as a zod issue (`{code, path, message}`), as services built on zod list them: the
 * code by the facts' table of JSON Schema keywords (`custom` otherwise); an unknown member is an
 * `unrecognized_keys` issue at its parent, naming it in `keys`; a type error names the `expected` type.
 */
function zodIssue(error: FieldError, codes: Record<string, string>): Record<string, unknown> {
  const code = codes[error.keyword] ?? "custom";
  const path = shortPath(error.path);
  if (isUnknownMember(error)) {
    const key = String(path.at(-1) ?? "");
    return { code, path: path.slice(0, -1), keys: [key], message: `Unrecognized key: ${JSON.stringify(key)}` };
  }
  const issue: Record<string, unknown> = { code, path, message: describeFieldError(error) };
  if (error.keyword === "type" && typeof error.params.type === "string") issue.expected = error.params.type;
  return issue;
}

/** The whole value `{issues}` in a refusal's body is the problems as a list. */
const ISSUES = "{issues}";
const PLACEHOLDER = /\{([a-z]+)\}/g;
/** The placeholders a problem fills in; the facts' `placeholders` add their own. */
const PROBLEM_PLACEHOLDERS = ["problems", "issues", "value", "method", "path", "allowed", "limit", "received", "supported", "message"];

/** Placeholders of a refusal's body that neither a problem nor the facts give a value: a typo the answers would carry as empty text. */
export function unknownPlaceholders(errors: ApiFacts["errors"]): string[] {
  const known = new Set([...PROBLEM_PLACEHOLDERS, ...Object.keys(errors.placeholders ?? {})]);
  const used = [...JSON.stringify(errors.refusals).matchAll(PLACEHOLDER)].map((match) => match[1]!);
  return [...new Set(used.filter((name) => !known.has(name)))];
}

type Refusal = ApiFacts["errors"]["refusals"][string];

/** The wording of an API from its facts: each refusal's status and body, with the placeholders filled in. */
export function wordingOf(errors: ApiFacts["errors"]): ErrorWording {
  const refusals = new Map<string, Refusal>(Object.entries(errors.refusals));
  const codes = errors.issueCodes ?? {};

  const refusalOf = (problem: Problem): string => {
    switch (problem.kind) {
      case "invalid":
        if (problem.refusal !== undefined) return problem.refusal;
        return refusals.has("invalid-unknown-member") && problem.errors.some((e) => e.in === "body" && isUnknownMember(e)) ? "invalid-unknown-member" : "invalid";
      case "unauthorized":
        // A key refused for its prefix is worded as an unknown one by an API whose facts word it no other way.
        return problem.reason === "wrong-prefix" && !refusals.has("unauthorized-wrong-prefix") ? "unauthorized-unknown-key" : `unauthorized-${problem.reason}`;
      case "not-found":
        return problem.allowed && problem.allowed.length > 0 ? "method-not-allowed" : "not-found";
      default:
        return problem.kind;
    }
  };

  /** The values a problem gives its placeholders, each cut to a length a message can hold. */
  const valuesOf = (problem: Problem, context: WordingContext): Map<string, string> => {
    const values = new Map<string, string>(Object.entries(errors.placeholders ?? {}));
    for (const [name, value] of Object.entries(context)) if (value !== undefined) values.set(name, value);
    switch (problem.kind) {
      case "invalid":
        values.set("problems", [...new Set(problem.errors.map(describeFieldError))].join("; "));
        values.set("value", truncate(problem.value ?? "", NAME_LIMIT));
        break;
      case "not-found":
        values.set("method", truncate(problem.method, 20));
        values.set("path", truncate(problem.path.split("?")[0]!, 200));
        values.set("allowed", (problem.allowed ?? []).join(", "));
        break;
      case "unsupported-media-type":
        values.set("received", truncate(problem.received, NAME_LIMIT));
        values.set("supported", problem.supported.join(" or "));
        break;
      case "bad-request":
      case "bad-gateway":
        values.set("message", problem.message);
        break;
      case "too-large":
        values.set("limit", String(problem.limit));
        break;
    }
    return values;
  };

  const fill = (template: unknown, values: Map<string, string>, issues: () => Array<Record<string, unknown>>): unknown => {
    if (template === ISSUES) return issues();
    // A placeholder the problem gives no value (`{message}` in a refusal that has none) is empty.
    if (typeof template === "string") return template.includes("{") ? truncate(template.replace(PLACEHOLDER, (_, name: string) => values.get(name) ?? "")) : template;
    if (Array.isArray(template)) return template.map((item) => fill(item, values, issues));
    if (typeof template === "object" && template !== null) return Object.fromEntries(Object.entries(template).map(([key, value]) => [key, fill(value, values, issues)]));
    return template;
  };

  return {
    refusalOf,
    word(problem, context = {}) {
      const name = refusalOf(problem);
      const refusal = refusals.get(name);
      if (!refusal) throw new Error(`the API's facts word no refusal ${name}`);
      let listed: Array<Record<string, unknown>> = [];
      const issues = () => {
        listed = problem.kind === "invalid" ? problem.errors.map((error) => zodIssue(error, codes)) : [];
        if (listed.length === 0) listed.push({ code: "custom", path: [], message: "Bad Request" });
        return listed;
      };
      const body = fill(refusal.body, valuesOf(problem, context), issues);
      // Twenty issues with messages at their limit stay far below it; this is the last guard.
      while (listed.length > 1 && JSON.stringify(body).length > ERROR_BODY_LIMIT) listed.pop();
      return { status: refusal.status, body };
    },
  };
}
