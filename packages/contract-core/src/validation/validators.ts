import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { cached, escapePointer, isObject, unescapePointer, type JsonObject } from "../document/pointer.js";
import { documentedResponseFor, walkOperations, walkWebhooks, type WalkedOperation, type WalkedParameter } from "../document/walk.js";
import { checkWebhookSignature, type SignatureCheck } from "@api-contracts/webhook-signatures";
import { normalizeHeaders, type HeaderValues } from "../wire/headers.js";
import { isJsonMediaType, matchMediaType } from "../wire/media-types.js";
import { pathMatcher } from "../wire/path-templates.js";
import { webhookSignatureScheme, type WebhookSignatureScheme } from "../webhooks/signature.js";
import { addXRules } from "./x-rules.js";

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** The `$id` the document is registered under, so that compiled schemas can `$ref` into it. */
const DOCUMENT_ID = "urn:openapi:document";

/** At most this many problems are reported for one request (and kept in a validator's `errors`). */
export const ERROR_LIMIT = 20;
/**
 * Values with more nodes than this are checked by a validator that stops at the first error: a
 * large body of wrong items would otherwise make ajv build one error object per item.
 */
export const FULL_REPORT_NODE_LIMIT = 2_000;

export interface ValidatorOptions {
  /** The clock `x-rules` time windows are judged by, in epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** Which operation: its operationId, method (upper case), path template and JSON pointer. */
export type OperationInfo = Pick<WalkedOperation, "operationId" | "method" | "path" | "pointer">;

export type Parameter = Omit<WalkedParameter, "object">;

export type RequestPart = "body" | "header" | "query" | "path";

/** A request as a server received it. */
export interface RequestParts {
  /** The concrete request path; path parameters are read from it with the operation's template. */
  path: string;
  query: Record<string, unknown>;
  /** Header values by lower-case name. */
  headers: Record<string, unknown>;
  /** The parsed JSON body; undefined when the request had none. */
  body: unknown;
}

/** One problem in a request, in a form every server can word its own way. */
export interface FieldError {
  in: RequestPart;
  /** The member at fault, array indices as numbers; a missing or unknown member is named itself. */
  path: Array<string | number>;
  /** The JSON Schema keyword that failed. */
  keyword: string;
  params: Record<string, unknown>;
  message: string;
}

export interface RequestValidators extends OperationInfo {
  /** Path-item and operation parameters; the operation's replace same-named ones. */
  parameters: Parameter[];
  /** Validates the JSON body; undefined when the operation documents none. */
  body?: ValidateFunction;
  bodyRequired: boolean;
  /** Validate and coerce the path, query and header parameters, one object per location (header names lower-case). */
  pathParams: ValidateFunction;
  query: ValidateFunction;
  headers: ValidateFunction;
  /** The documented parameters of a request, read as the operation's schemas coerce them, and their problems (body left out). */
  readParameters(request: Omit<RequestParts, "body">): ParameterReading;
  /** Every check at once, in the order body, header, query, path; an empty list means valid. */
  validate(request: RequestParts): FieldError[];
}

/** A request's documented parameters, each as its schema reads it (`"true"` a boolean), by location. */
export interface ParameterReading {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  /** By lower-case name. */
  headers: Record<string, unknown>;
  /** Problems of the header, query and path parameters, in that order. */
  errors: FieldError[];
}

export interface DocumentedResponse {
  /** The key the status matched: `200`, `4XX` or `default`. */
  code: string;
  /** JSON pointer of the response object, after its `$ref`s. */
  pointer: string;
  /** Media type objects by media type; empty when the response has no body. */
  content: JsonObject;
}

/** A webhook as an operation: `event` is its key under `webhooks` (the payload's `type`), which `path` holds too. */
export type WebhookInfo = OperationInfo & { event: string };

/** The payload and header validators of one webhook, as {@link RequestValidators} are a request's. */
export type WebhookValidators = RequestValidators & { event: string };

/** A call as a receiver got it. */
export interface Delivery {
  /** Header values by name, in any case. */
  headers: HeaderValues;
  /** The body exactly as received, before parsing: the signature is computed over these bytes. */
  body: string | Uint8Array;
}

export interface DeliveryOptions {
  /** The receiver's secret: when given, the call's signature is checked by the description's `x-webhook-signature`. */
  secret?: string;
  /** The receiver's clock for a signature's timestamp, in epoch milliseconds (default: the validators' `now`). */
  now?: () => number;
  /** Overrides a Standard Webhooks scheme's `toleranceSeconds`. */
  toleranceSeconds?: number;
}

/** What {@link OpenApiValidators.validateDelivery} found: every problem of a call, none when it keeps the contract. */
export interface DeliveryVerdict {
  /** The payload's `type`, when the body is JSON and names a documented webhook. */
  event?: string;
  operationId?: string;
  /** The parsed body, when it is JSON. */
  payload?: unknown;
  /** The signature check's own outcome, when a secret was given (a failure is also one of `errors`). */
  signature?: SignatureCheck;
  /** Body, header and signature problems; `keyword` is `json` for a body that is not JSON, `signature` for a signature not accepted. */
  errors: FieldError[];
}

/** The member path of an ajv error; ajv reports a missing or unknown member at its parent. */
export function errorPath(error: ErrorObject): Array<string | number> {
  const path: Array<string | number> = error.instancePath
    .split("/")
    .slice(1)
    .map(unescapePointer)
    .map((token) => (/^\d+$/.test(token) ? Number(token) : token));
  const params = error.params as Record<string, unknown>;
  const member = params.missingProperty ?? params.additionalProperty ?? params.unevaluatedProperty;
  if (typeof member === "string") path.push(member);
  return path;
}

/** Members named by a schema made only of `required` (as in `oneOf: [{required: [a]}, {required: [b]}]`). */
function requiredOnly(schema: unknown): string[] | null {
  if (!isObject(schema)) return null;
  const keys = Object.keys(schema).filter((k) => k !== "title" && k !== "description");
  return keys.length === 1 && Array.isArray(schema.required) ? schema.required.map(String) : null;
}

function requiredBranches(error: ErrorObject): string[] | null {
  const branches = Array.isArray(error.schema) ? error.schema.map(requiredOnly) : [];
  return branches.length > 0 && branches.every((b) => b !== null) ? branches.flat() : null;
}

/**
 * The errors that explain a failed validation. ajv reports every branch of a failed `oneOf` or
 * `anyOf` plus the combinator itself: when the branches only say which members are required, the
 * combinator says it best; otherwise the branches' own errors name the member.
 */
export function usefulErrors(errors: readonly ErrorObject[] | null | undefined): ErrorObject[] {
  let all = (errors ?? []).filter((e) => e.keyword !== "if");
  for (const combinator of all.filter((e) => e.keyword === "oneOf" || e.keyword === "anyOf")) {
    const required = requiredBranches(combinator) !== null;
    all = all.filter((e) => (required ? !e.schemaPath.startsWith(`${combinator.schemaPath}/`) : e !== combinator));
  }
  return all.length > 0 ? all : [...(errors ?? [])];
}

/**
 * ajv errors as {@link FieldError}s (at most `limit`), only the useful ones; a `oneOf` of
 * required-only branches carries the member names in `params.exactlyOneOf`, a `not` of
 * `required` the forbidden ones in `params.notTogether`.
 */
export function fieldErrors(errors: readonly ErrorObject[] | null | undefined, where: RequestPart, limit = ERROR_LIMIT): FieldError[] {
  const found: FieldError[] = [];
  // A schema that applies the same subschema twice (an allOf branch and an if/then) fails it twice.
  const seen = new Set<string>();
  for (const error of usefulErrors(errors)) {
    if (found.length >= limit) break;
    const key = `${error.instancePath}\u0000${error.keyword}\u0000${error.message}\u0000${JSON.stringify(error.params)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const params = { ...(error.params as Record<string, unknown>) };
    if (error.keyword === "oneOf" || error.keyword === "anyOf") {
      const names = requiredBranches(error);
      if (names) params.exactlyOneOf = names;
    }
    if (error.keyword === "not" && isObject(error.schema) && Array.isArray(error.schema.required)) params.notTogether = error.schema.required.map(String);
    found.push({ in: where, path: errorPath(error), keyword: error.keyword, params, message: error.message ?? "is invalid" });
  }
  return found;
}

/**
 * Walks a value once, without recursion (a parsed body can be nested deeper than the stack): whether
 * it is small enough to be reported in full, and where it holds non-finite numbers. JSON cannot
 * carry Infinity or NaN, but `JSON.parse("1e400")` gives Infinity, which ajv's own type checks would
 * let through wherever the schema does not say `number`.
 */
function survey(value: unknown): { small: boolean; nonFinite: ErrorObject[] } {
  let nodes = 0;
  let nonFiniteSeen = false;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    nodes++;
    if (typeof node === "number") {
      if (!Number.isFinite(node)) nonFiniteSeen = true;
    } else if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) stack.push(node[i]);
    } else if (isObject(node)) {
      for (const key of Object.keys(node)) stack.push(node[key]);
    }
  }
  return { small: nodes <= FULL_REPORT_NODE_LIMIT, nonFinite: nonFiniteSeen ? locateNonFinite(value) : [] };
}

/** Where a value holds non-finite numbers, in document order; only called once one is known to be there. */
function locateNonFinite(value: unknown): ErrorObject[] {
  const found: ErrorObject[] = [];
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: "" }];
  while (stack.length > 0 && found.length < ERROR_LIMIT) {
    const { value: node, path } = stack.pop()!;
    if (typeof node === "number") {
      if (!Number.isFinite(node)) found.push({ keyword: "finite", instancePath: path, schemaPath: "#", params: { value: String(node) }, message: "must be a finite number" });
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push({ value: node[i], path: `${path}/${i}` });
    } else if (isObject(node)) {
      const keys = Object.keys(node);
      for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: node[keys[i]!], path: `${path}/${escapePointer(keys[i]!)}` });
    }
  }
  return found;
}

/**
 * One validator that reports every problem of a value of ordinary size, only the first of a
 * large one, refuses non-finite numbers anywhere, and keeps at most {@link ERROR_LIMIT} errors.
 */
function bounded(full: ValidateFunction, firstOnly: () => ValidateFunction): ValidateFunction {
  const validate = function (this: unknown, data: unknown, context?: unknown): boolean {
    const { small, nonFinite } = survey(data);
    if (nonFinite.length > 0) {
      validate.errors = nonFinite;
      return false;
    }
    const check = small ? full : firstOnly();
    const ok = (check as (d: unknown, c?: unknown) => boolean).call(this, data, context);
    validate.errors = ok ? null : (check.errors ?? []).slice(0, ERROR_LIMIT);
    return ok;
  } as ValidateFunction;
  // Callers read the compiled schema (for instance the names of documented headers).
  validate.schema = full.schema;
  validate.schemaEnv = full.schemaEnv;
  validate.errors = null;
  return validate;
}

function makeAjv(document: JsonObject, coerce: boolean, allErrors: boolean, now: () => number): Ajv2020 {
  const ajv = new Ajv2020({
    // OpenAPI adds keywords JSON Schema does not know (example, discriminator, ...): not strict.
    strict: false,
    allErrors,
    // Infinity and NaN are not JSON numbers.
    strictNumbers: true,
    validateSchema: false,
    // "array" because a query parameter documented as an array may arrive once, as a plain string.
    coerceTypes: coerce ? "array" : false,
    // Error wording looks at the failing schema itself, e.g. the branches of a oneOf.
    verbose: true,
    logger: false,
  });
  addFormats(ajv);
  addXRules(ajv, now);
  ajv.addSchema(document, DOCUMENT_ID);
  return ajv;
}

type Operation = OperationInfo & { walked: WalkedOperation; match: (path: string) => Record<string, string> | undefined };

/**
 * Validators compiled from one bundled OpenAPI 3.1 description. Every validator references the
 * document by JSON pointer, so the rules live only in the description; each is compiled once,
 * on first use. Reported errors are bounded ({@link ERROR_LIMIT}), and `x-rules` are enforced.
 */
export class OpenApiValidators {
  readonly document: JsonObject;
  /** ajv instances of the document, made on first use: with or without coercion, every error or the first. */
  private readonly ajvs = new Map<string, Ajv2020>();
  private readonly operations: Operation[];
  private readonly webhookOperations: Array<Operation & { event: string }>;
  private readonly schemas = new Map<string, ValidateFunction>();
  private readonly requests = new Map<string, RequestValidators>();
  private readonly webhookValidators = new Map<string, WebhookValidators>();
  private readonly now: () => number;
  /** The description's `x-webhook-signature`; undefined when it states none. */
  readonly webhookSignature: WebhookSignatureScheme | undefined;

  constructor(document: JsonObject, options: ValidatorOptions = {}) {
    this.document = document;
    this.now = options.now ?? Date.now;
    this.webhookSignature = webhookSignatureScheme(document);
    this.webhookOperations = walkWebhooks(document).map((walked) => ({ ...info(walked), walked, event: walked.event, match: () => ({}) }));
    this.operations = walkOperations(document).map((walked) => ({ ...info(walked), walked, match: pathMatcher(walked.path) }));
  }

  /** Every operation, in document order. */
  listOperations(): OperationInfo[] {
    return this.operations.map(info);
  }

  /** Every operation walked: merged parameters, request body, documented responses and their examples. */
  walkedOperations(): WalkedOperation[] {
    return this.operations.map((op) => op.walked);
  }

  /** Every webhook, in document order. */
  listWebhooks(): WebhookInfo[] {
    return this.webhookOperations.map((op) => ({ ...info(op), event: op.event }));
  }

  /** Payload and header validators of the webhook of `event` (its `POST`). */
  webhook(event: string): WebhookValidators {
    return cached(this.webhookValidators, event, () => {
      const op = this.webhookOperations.find((candidate) => candidate.event === event);
      if (!op) throw new Error(`the description has no webhook ${event}`);
      return { ...this.compileRequest(op), event };
    });
  }

  /**
   * Judges one webhook call as a receiver got it: the body is JSON, its `type` names a documented
   * webhook, the payload and the headers keep that webhook's schemas, the Content-Type is a
   * documented one, and, when a secret is given, the signature is right. Every problem is returned,
   * at most {@link ERROR_LIMIT}; the body is never echoed in them.
   */
  validateDelivery(delivery: Delivery, options: DeliveryOptions = {}): DeliveryVerdict {
    const verdict: DeliveryVerdict = { errors: [] };
    const add = (found: FieldError[]) => addBounded(verdict.errors, found);
    const headers = normalizeHeaders(delivery.headers);
    let text: string;
    try {
      // The bytes as sent, a byte order mark included: the signature is computed over them.
      text = typeof delivery.body === "string" ? delivery.body : new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(delivery.body);
    } catch {
      add([{ in: "body", path: [], keyword: "json", params: {}, message: "is not UTF-8 text" }]);
      return verdict;
    }
    if (options.secret !== undefined) {
      if (!this.webhookSignature) throw new Error("the description states no x-webhook-signature: a signature cannot be checked");
      verdict.signature = checkWebhookSignature(this.webhookSignature, { headers, body: text }, options.secret, { now: options.now ?? this.now, toleranceSeconds: options.toleranceSeconds });
      if (!verdict.signature.ok) {
        const { reason, header, message } = verdict.signature;
        add([{ in: "header", path: [header.toLowerCase()], keyword: "signature", params: { reason }, message }]);
      }
    }
    try {
      verdict.payload = JSON.parse(text);
    } catch {
      add([{ in: "body", path: [], keyword: "json", params: {}, message: "is not JSON" }]);
      return verdict;
    }
    const type = isObject(verdict.payload) ? verdict.payload.type : undefined;
    const op = this.webhookOperations.find((candidate) => candidate.event === type);
    if (!op) {
      const allowedValues = this.webhookOperations.map((candidate) => candidate.event);
      add([{ in: "body", path: ["type"], keyword: "enum", params: { allowedValues }, message: `must name a documented webhook (${allowedValues.join(", ")})` }]);
      return verdict;
    }
    verdict.event = op.event;
    verdict.operationId = op.operationId;
    const documented = (op.walked.requestBody?.media ?? []).map((media) => media.mediaType);
    if (documented.length > 0 && matchMediaType(headers["content-type"] ?? "", documented) === undefined) {
      add([{ in: "header", path: ["content-type"], keyword: "mediaType", params: { allowed: documented }, message: `must be ${documented.join(" or ")}` }]);
    }
    add(this.webhook(op.event).validate({ path: op.event, query: {}, headers, body: verdict.payload }));
    return verdict;
  }

  /** The operation a concrete request path hits; a template with fewer variables wins. */
  findOperation(method: string, path: string): OperationInfo | undefined {
    const upper = method.toUpperCase();
    const hits = this.operations.filter((op) => {
      const values = op.method === upper ? op.match(path) : undefined;
      return values !== undefined && Object.values(values).every((v) => v !== "");
    });
    hits.sort((a, b) => a.path.split("{").length - b.path.split("{").length);
    return hits[0] && info(hits[0]);
  }

  /** Validator of the schema at a JSON pointer of the document (no coercion). */
  schema(pointer: string): ValidateFunction {
    return cached(this.schemas, pointer, () => this.compile({ $ref: `${DOCUMENT_ID}#${pointer}` }, false));
  }

  /** Validator of `#/components/schemas/<name>`. */
  component(name: string): ValidateFunction {
    return this.schema(`/components/schemas/${escapePointer(name)}`);
  }

  /** Request validators of the operation at `method` and path template. */
  request(method: string, template: string): RequestValidators {
    return cached(this.requests, `${method.toUpperCase()} ${template}`, () => this.compileRequest(this.operation(method, template)));
  }

  /** The response documented for a status: the exact code, then its range (`4XX`), then `default`. */
  documentedResponse(method: string, template: string, status: number): DocumentedResponse | undefined {
    const found = documentedResponseFor(this.operation(method, template).walked.responses, status);
    return found && { code: found.status, pointer: found.pointer, content: found.content };
  }

  /** Validator of the body documented for a status and Content-Type; null when none has a schema. */
  response(method: string, template: string, status: number, contentType = "application/json"): ValidateFunction | null {
    const documented = this.documentedResponse(method, template, status);
    if (!documented) return null;
    const mediaType = matchMediaType(contentType, Object.keys(documented.content));
    const media = mediaType === undefined ? undefined : documented.content[mediaType];
    if (!isObject(media) || media.schema === undefined) return null;
    return this.schema(`${documented.pointer}/content/${escapePointer(mediaType!)}/schema`);
  }

  /** A bounded validator of a schema; the stop-at-first variant is compiled only if a large value comes. */
  private compile(schema: object, coerce: boolean): ValidateFunction {
    const ajv = (allErrors: boolean) => cached(this.ajvs, `${coerce} ${allErrors}`, () => makeAjv(this.document, coerce, allErrors, this.now));
    const full = ajv(true).compile(schema);
    let first: ValidateFunction | undefined;
    return bounded(full, () => (first ??= ajv(false).compile(schema)));
  }

  private operation(method: string, template: string): Operation {
    const upper = method.toUpperCase();
    const found = this.operations.find((op) => op.method === upper && op.path === template);
    if (!found) throw new Error(`the description has no operation ${upper} ${template}`);
    return found;
  }

  private compileRequest(op: Operation): RequestValidators {
    const parameters: Parameter[] = op.walked.parameters.map(({ object: _object, ...parameter }) => parameter);
    const group = (where: "header" | "query" | "path") => {
      const selected = parameters.filter((p) => p.in === where);
      const names = selected.map((p) => (where === "header" ? p.name.toLowerCase() : p.name));
      const validate = this.compile(
        {
          type: "object",
          properties: Object.fromEntries(selected.map((p, i) => [names[i], { $ref: `${DOCUMENT_ID}#${p.schema}` }])),
          required: names.filter((_, i) => selected[i]!.required),
        },
        true,
      );
      return { where, names, validate };
    };
    const headers = group("header");
    const query = group("query");
    const pathParams = group("path");

    const requestBody = op.walked.requestBody;
    const json = requestBody?.media.find((m) => isJsonMediaType(m.mediaType.toLowerCase()) && m.schema !== undefined);
    const body = json ? this.schema(json.schema!) : undefined;
    const bodyRequired = body !== undefined && requestBody!.required;

    // Locations without parameters are skipped: nothing there can fail.
    const groups = [headers, query, pathParams].filter((g) => g.names.length > 0);
    const readParameters = (request: Omit<RequestParts, "body">): ParameterReading => {
      const reading: ParameterReading = { path: {}, query: {}, headers: {}, errors: [] };
      for (const { where, names, validate: check } of groups) {
        const source: Record<string, unknown> = where === "path" ? (op.match(request.path) ?? {}) : where === "query" ? request.query : request.headers;
        // Copies: ajv coerces in place, and the request's own objects stay as they came.
        const values: Record<string, unknown> = {};
        for (const name of names) if (Object.hasOwn(source, name)) values[name] = source[name];
        if (!check(values)) addBounded(reading.errors, fieldErrors(check.errors, where));
        reading[where === "header" ? "headers" : where] = values;
      }
      return reading;
    };
    const validate = (request: RequestParts): FieldError[] => {
      const errors: FieldError[] = [];
      if (body) {
        if (request.body === undefined) {
          if (bodyRequired) errors.push(MISSING_BODY);
        } else if (!body(request.body)) {
          addBounded(errors, fieldErrors(body.errors, "body"));
        }
      }
      addBounded(errors, readParameters(request).errors);
      return errors;
    };

    return { ...info(op), parameters, body, bodyRequired, pathParams: pathParams.validate, query: query.validate, headers: headers.validate, readParameters, validate };
  }
}

/** A required body that did not come. */
export const MISSING_BODY: FieldError = { in: "body", path: [], keyword: "required", params: {}, message: "is required" };

/** Adds errors to a list until it holds {@link ERROR_LIMIT}. */
function addBounded(errors: FieldError[], found: readonly FieldError[]): void {
  for (const error of found) if (errors.length < ERROR_LIMIT) errors.push(error);
}

function info(op: OperationInfo): OperationInfo {
  return { operationId: op.operationId, method: op.method, path: op.path, pointer: op.pointer };
}
