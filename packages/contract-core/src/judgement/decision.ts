// The one decision on a request: which operation it hits, and whether the API refuses it, why and
// with which answer, checked in the live service's order (the API's facts: `requests.checks`) and
// read as the live service reads it (`requests.bodies`). The mock, the reference server, the proxy,
// the kit, the docs console and conformance all ask this, so that one request gets one verdict.
// Browser-safe: no Node built-in.
import { readForm } from "#form";
import { cached, escapePointer, follow, isObject, resolvePointer, type JsonObject } from "../document/pointer.js";
import { HTTP_METHODS, type WalkedOperation } from "../document/walk.js";
import type { ApiFacts } from "../generated/api-facts.js";
import { fieldErrors, MISSING_BODY, type FieldError, type OpenApiValidators, type OperationInfo } from "../validation/validators.js";
import { normalizeHeaders, type HeaderValues } from "../wire/headers.js";
import { matchMediaType } from "../wire/media-types.js";
import { pathOf, queryOf } from "../wire/urls.js";
import { fieldMessage, truncate, unknownPlaceholders, type Problem } from "../wording/wording.js";
import { authorizationProblem } from "./authorization.js";

/** A request as a server received it. */
export interface IncomingRequest {
  method: string;
  /** The request target: path and query (`/v2/crawl?x=1`), without the origin. */
  target: string;
  headers: HeaderValues;
  /** The body as received, decoded from its content coding; undefined or empty for none. */
  body?: string | Uint8Array;
}

export interface DecideOptions {
  /** Whether the server knows a key. Without it any well-formed key is taken: a mock's way, or a judge's that cannot know. */
  acceptsKey?: (key: string) => boolean;
}

/** A request as the service reads it: documented parameters coerced by their schemas, the body parsed. */
export interface ReadRequest {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  /** Every header, by lower-case name (documented ones as their schemas read them). */
  headers: Record<string, unknown>;
  body: unknown;
}

/** The part of a message a problem is in. */
export type ProblemPart = "body" | "header" | "query" | "path" | "status";

/** One broken rule of an exchange, as every tool reports it. */
export interface ContractProblem {
  in: ProblemPart;
  /** JSON pointer inside that part: `/balance/remaining` in the body, `/content-type` among the headers; empty for the part itself. */
  pointer: string;
  /** The JSON Schema keyword that failed, or the judgement's own name for the rule (`operation`, `authorization`, `status`, `media-type`, `json`, `body`). */
  keyword: string;
  message: string;
}

/** What the API does with a request: refuses it (`refusal`, and the `problems` the check that refused it found) or serves it. */
export interface Decision {
  /** The operation it hits; absent when none does. */
  operation?: OperationInfo;
  /** The rules broken at the check that refused it; empty when it is served. */
  problems: ContractProblem[];
  /** Why it is refused, for the API's wording; absent when it is served. */
  refusal?: Problem;
  /** The request as the service reads it; absent when it is refused before its body is read. */
  read?: ReadRequest;
}

const pointerOf = (path: ReadonlyArray<string | number>) => path.map((part) => `/${escapePointer(String(part))}`).join("");

/**
 * Validation errors as problems. A value that failed every branch of a nullable union (`anyOf:
 * [Balance, {type: null}]`) gets an error from each; when one branch failed deeper inside the
 * value, the value had that branch's shape, and "must be null" only adds noise.
 */
export function problemsOf(errors: readonly FieldError[]): ContractProblem[] {
  const shown = errors.map((error) => ({ in: error.in, pointer: pointerOf(error.path), keyword: error.keyword, message: fieldMessage(error) }));
  return shown.filter((e) => e.keyword !== "type" || !shown.some((deeper) => deeper.in === e.in && deeper.pointer.startsWith(`${e.pointer}/`)));
}

const AUTHORIZATION_SENTENCES: Record<Extract<Problem, { kind: "unauthorized" }>["reason"], string> = {
  missing: "is missing",
  empty: "is Bearer with no key",
  malformed: "is not Bearer and one key",
  "wrong-prefix": "carries a key without the prefix every key of the API has",
  "unknown-key": "carries a key the server does not know",
};

/** A received Content-Type as a message names it: quoted, cut at 100 characters. */
export const contentTypeShown = (contentType: string | null | undefined) => (contentType ? `is '${truncate(contentType, 100)}'` : "is missing");


/** A parameter as a check names it: `header x-api-version` (header names in lower case). */
const parameterKey = (where: string, name: string) => `${where} ${where === "header" ? name.toLowerCase() : name}`;
const keyOf = (error: FieldError) => parameterKey(error.in, String(error.path[0] ?? ""));

/** The value a request gave the parameter at fault, for a refusal that quotes it. */
function valueOf(error: FieldError, sources: Record<string, Record<string, unknown>>): string | undefined {
  const source = sources[error.in] ?? {};
  const name = String(error.path[0] ?? "");
  const value = Object.hasOwn(source, name) ? source[name] : undefined;
  return value === undefined ? undefined : Array.isArray(value) ? value.join(",") : String(value);
}

/**
 * Whether the facts of an API hold together: every refusal a check or a body rule needs is worded,
 * and the body is read before its schema is judged. The registry checks every API it loads.
 */
export function factsProblems(facts: ApiFacts): string[] {
  const problems: string[] = [];
  const { checks, bodies } = facts.requests;
  const refusals = facts.errors.refusals;
  const needed = [
    ...checks.flatMap((check) => (typeof check === "object" ? [check.refusal] : [])),
    ...(bodies.some((rule) => rule.read === "json" && (rule.malformed ?? "refuse") === "refuse") ? ["malformed-json"] : []),
    ...(bodies.some((rule) => rule.read === "refuse") ? ["unsupported-media-type"] : []),
  ];
  for (const kind of new Set(needed)) if (!Object.hasOwn(refusals, kind)) problems.push(`errors.refusals has no ${kind}, which requests need`);
  for (const step of ["body", "parameters", "schema"] as const) if (!checks.includes(step)) problems.push(`requests.checks lacks ${step}`);
  if (checks.indexOf("schema") < checks.indexOf("body")) problems.push("requests.checks judges the schema before the body is read");
  if (JSON.stringify(refusals).includes('"{issues}"') && facts.errors.issueCodes === undefined) problems.push("a refusal lists {issues} but errors.issueCodes is missing");
  for (const name of unknownPlaceholders(facts.errors)) problems.push(`errors.refusals use {${name}}, which no problem and no placeholders give`);
  return problems;
}

/** Whether an operation's security asks for a bearer key (an alternative without requirements makes it optional). */
function requiresBearer(document: JsonObject, operation: WalkedOperation): boolean {
  const alternatives = operation.operation.security ?? document.security;
  if (!Array.isArray(alternatives) || alternatives.length === 0) return false;
  if (alternatives.some((alternative) => !isObject(alternative) || Object.keys(alternative).length === 0)) return false;
  return alternatives.some((alternative) =>
    Object.keys(alternative as JsonObject).some((name) => {
      const at = `/components/securitySchemes/${escapePointer(name)}`;
      const scheme = follow(document, resolvePointer(document, at), at).node;
      return isObject(scheme) && scheme.type === "http" && String(scheme.scheme).toLowerCase() === "bearer";
    }),
  );
}

/** A body's text: decoded as UTF-8 as the services decode it (a malformed sequence becomes U+FFFD). */
const textOf = (body: string | Uint8Array) => (typeof body === "string" ? body : new TextDecoder().decode(body));

/** Decides requests for one API from its facts and its description's validators. */
export class RequestDecider {
  private readonly requiresBearer = new Map<string, boolean>();
  private readonly walked: Map<string, WalkedOperation>;

  constructor(
    readonly facts: ApiFacts,
    readonly validators: OpenApiValidators,
  ) {
    this.walked = new Map(validators.walkedOperations().map((op) => [op.pointer, op]));
  }

  decide(request: IncomingRequest, options: DecideOptions = {}): Decision {
    const method = request.method.toUpperCase();
    const path = pathOf(request.target);
    const operation = this.validators.findOperation(method, path);
    if (!operation) return this.notFound(method, path);
    const walked = this.walked.get(operation.pointer)!;
    const validators = this.validators.request(operation.method, operation.path);
    const headers = normalizeHeaders(request.headers);
    const parameters = validators.readParameters({ path, query: queryOf(request.target), headers });
    const claimed = new Set<string>();
    const reading = (value: unknown): ReadRequest => ({ path: parameters.path, query: parameters.query, headers: { ...headers, ...parameters.headers }, body: value });
    const refuse = (refusal: Problem, problems: ContractProblem[], read?: ReadRequest): Decision => ({ operation, problems, refusal, ...(read ? { read } : {}) });
    let body: { value: unknown } | undefined;

    for (const check of this.facts.requests.checks) {
      if (check === "authorization") {
        if (!this.bearer(walked)) continue;
        const reason = authorizationProblem(headers.authorization, options.acceptsKey ?? (() => true), this.facts.key);
        if (reason) return refuse({ kind: "unauthorized", reason }, [{ in: "header", pointer: "/authorization", keyword: "authorization", message: AUTHORIZATION_SENTENCES[reason] }]);
      } else if (check === "body") {
        const read = this.readBody(walked, headers, request.body);
        if ("refusal" in read) return refuse(read.refusal, read.problems);
        body = read;
      } else if (check === "parameters" || typeof check === "object") {
        const named = typeof check === "object" ? new Set(check.parameters.map((key) => parameterKey(...(key.split(" ", 2) as [string, string])))) : undefined;
        const errors = parameters.errors.filter((error) => !claimed.has(keyOf(error)) && (!named || named.has(keyOf(error))));
        for (const key of [...errors.map(keyOf), ...(named ?? [])]) claimed.add(key);
        if (errors.length > 0) {
          const value = typeof check === "object" ? valueOf(errors[0]!, { path: parameters.path, query: queryOf(request.target), header: headers }) : undefined;
          const refusal: Problem = { kind: "invalid", errors, ...(typeof check === "object" ? { refusal: check.refusal } : {}), ...(value !== undefined ? { value } : {}) };
          return refuse(refusal, problemsOf(errors), body && reading(body.value));
        }
      } else if (check === "schema") {
        const value = body?.value;
        const errors = !validators.body ? [] : value === undefined ? (validators.bodyRequired ? [MISSING_BODY] : []) : validators.body(value) ? [] : fieldErrors(validators.body.errors, "body");
        if (errors.length > 0) return refuse({ kind: "invalid", errors }, problemsOf(errors), reading(value));
      }
    }
    return { operation, problems: [], read: reading(body?.value) };
  }

  /** The refusal of a request no operation serves; the methods that are served at its path are named. */
  private notFound(method: string, path: string): Decision {
    const allowed = HTTP_METHODS.map((m) => m.toUpperCase()).filter((m) => this.validators.findOperation(m, path));
    const documented = allowed.length > 0 ? `; documented at this path: ${allowed.join(", ")}` : "";
    const message = `${truncate(method, 20)} ${truncate(path, 200)} is not an operation of the contract${documented}`;
    return { problems: [{ in: "path", pointer: "", keyword: "operation", message }], refusal: { kind: "not-found", method, path, allowed } };
  }

  private bearer(walked: WalkedOperation): boolean {
    return cached(this.requiresBearer, walked.pointer, () => requiresBearer(this.validators.document, walked));
  }

  /**
   * The body as the service reads it, by the first rule of `requests.bodies` that covers its
   * Content-Type. An operation that takes no body ignores one; no body (or one no rule covers) is
   * absent, or `{}` where the facts read it so.
   */
  private readBody(walked: WalkedOperation, headers: Record<string, string>, raw: string | Uint8Array | undefined): { value: unknown } | { refusal: Problem; problems: ContractProblem[] } {
    if (!walked.requestBody) return { value: undefined };
    const none = { value: this.facts.requests.empty === "empty-object" ? {} : undefined };
    if (raw === undefined || raw.length === 0) return none;
    const contentType = headers["content-type"] ?? "";
    const rule = this.facts.requests.bodies.find((candidate) => matchMediaType(contentType, candidate.mediaTypes) !== undefined);
    if (!rule) return none;
    switch (rule.read) {
      case "empty":
        return { value: {} };
      case "refuse": {
        const documented = walked.requestBody.media.map((media) => media.mediaType);
        const problems = [{ in: "header" as const, pointer: "/content-type", keyword: "media-type", message: `${contentTypeShown(contentType)}, which the request body does not take; documented: ${documented.join(", ")}` }];
        return { refusal: { kind: "unsupported-media-type", received: contentType || "(none)", supported: documented }, problems };
      }
      case "form":
        return { value: readForm(textOf(raw)) };
      case "json":
        try {
          return { value: JSON.parse(textOf(raw)) };
        } catch {
          if (rule.malformed === "empty") return { value: {} };
          return { refusal: { kind: "malformed-json" }, problems: [{ in: "body", pointer: "", keyword: "json", message: "is not valid JSON" }] };
        }
    }
  }

}
