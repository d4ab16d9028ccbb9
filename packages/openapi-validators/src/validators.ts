import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { escapePointer, follow, isObject, resolvePointer, unescapePointer, type JsonObject } from "./pointer.js";

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** The `$id` the document is registered under, so that compiled schemas can `$ref` into it. */
const DOCUMENT_ID = "urn:openapi:document";

export interface OperationInfo {
  operationId: string;
  /** Upper case: `POST`. */
  method: string;
  /** The path template as the description writes it: `/v2/crawl/{id}`. */
  path: string;
  /** JSON pointer of the operation object in the document. */
  pointer: string;
}

export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  /** JSON pointer of the parameter's schema. */
  schema: string;
}

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
  /** Every check at once, in the order body, header, query, path; an empty list means valid. */
  validate(request: RequestParts): FieldError[];
}

export interface DocumentedResponse {
  /** The key the status matched: `200`, `4XX` or `default`. */
  code: string;
  /** JSON pointer of the response object, after its `$ref`s. */
  pointer: string;
  /** Media type objects by media type; empty when the response has no body. */
  content: JsonObject;
}

/** Reads the bundled description of one API from `@api-contracts/spec`. */
export function loadBundle(api: "entitlements" | "webdata"): JsonObject {
  const file = createRequire(import.meta.url).resolve(`@api-contracts/spec/${api}.json`);
  return JSON.parse(readFileSync(file, "utf8")) as JsonObject;
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

export function fieldErrors(errors: ErrorObject[] | null | undefined, where: RequestPart): FieldError[] {
  return (errors ?? []).map((error) => ({
    in: where,
    path: errorPath(error),
    keyword: error.keyword,
    params: error.params as Record<string, unknown>,
    message: error.message ?? "is invalid",
  }));
}

export function isJsonMediaType(mediaType: string): boolean {
  return mediaType === "application/json" || mediaType.endsWith("+json");
}

/** The documented media type that covers a Content-Type: the same type, `type/*` or `*\/*`. */
export function matchMediaType(contentType: string, documented: string[]): string | undefined {
  const received = contentType.split(";")[0]!.trim().toLowerCase();
  return documented.find((key) => {
    const type = key.toLowerCase();
    if (type === received || type === "*/*") return true;
    return type.endsWith("/*") && received.startsWith(type.slice(0, -1));
  });
}

/** Matches a concrete path against a template and returns its decoded variables. */
function pathMatcher(template: string): (path: string) => Record<string, string> | undefined {
  const names: string[] = [];
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      if (!/^\{[^}]+\}$/.test(part)) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(part.slice(1, -1));
      return "([^/]*)";
    })
    .join("");
  const pattern = new RegExp(`^${source}$`);
  return (path) => {
    const match = pattern.exec(path);
    if (!match) return undefined;
    const values: Record<string, string> = {};
    names.forEach((name, i) => {
      const raw = match[i + 1]!;
      try {
        values[name] = decodeURIComponent(raw);
      } catch {
        // A broken escape is still a value, and the schema decides whether it is acceptable.
        values[name] = raw;
      }
    });
    return values;
  };
}

function makeAjv(document: JsonObject, coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    // OpenAPI adds keywords JSON Schema does not know (example, discriminator, ...): not strict.
    strict: false,
    allErrors: true,
    validateSchema: false,
    // "array" because a query parameter documented as an array may arrive once, as a plain string.
    coerceTypes: coerce ? "array" : false,
    // Error wording looks at the failing schema itself, e.g. the branches of a oneOf.
    verbose: true,
    logger: false,
  });
  addFormats(ajv);
  ajv.addSchema(document, DOCUMENT_ID);
  return ajv;
}

type Operation = OperationInfo & { match: (path: string) => Record<string, string> | undefined };

/**
 * Validators compiled from one bundled OpenAPI 3.1 description. Every validator references the
 * document by JSON pointer, so the rules live only in the description; each is compiled once,
 * on first use.
 */
export class OpenApiValidators {
  readonly document: JsonObject;
  private readonly strict: Ajv2020;
  private coercing: Ajv2020 | undefined;
  private readonly operations: Operation[] = [];
  private readonly schemas = new Map<string, ValidateFunction>();
  private readonly requests = new Map<string, RequestValidators>();

  constructor(document: JsonObject) {
    this.document = document;
    this.strict = makeAjv(document, false);
    for (const [template, raw] of Object.entries(isObject(document.paths) ? document.paths : {})) {
      const item = follow(document, raw, `/paths/${escapePointer(template)}`);
      if (!isObject(item.node)) continue;
      for (const method of HTTP_METHODS) {
        const operation = item.node[method];
        if (!isObject(operation)) continue;
        const pointer = `${item.pointer}/${method}`;
        const operationId = String(operation.operationId ?? pointer);
        this.operations.push({ operationId, method: method.toUpperCase(), path: template, pointer, match: pathMatcher(template) });
      }
    }
  }

  /** Every operation, in document order. */
  listOperations(): OperationInfo[] {
    return this.operations.map(({ match: _match, ...info }) => info);
  }

  /** The operation a concrete request path hits; a template with fewer variables wins. */
  findOperation(method: string, path: string): OperationInfo | undefined {
    const upper = method.toUpperCase();
    const hits = this.operations.filter((op) => {
      const values = op.method === upper ? op.match(path) : undefined;
      return values !== undefined && Object.values(values).every((v) => v !== "");
    });
    hits.sort((a, b) => a.path.split("{").length - b.path.split("{").length);
    const best = hits[0];
    if (!best) return undefined;
    const { match: _match, ...info } = best;
    return info;
  }

  /** Validator of the schema at a JSON pointer of the document (no coercion). */
  schema(pointer: string): ValidateFunction {
    let validate = this.schemas.get(pointer);
    if (!validate) {
      validate = this.strict.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
      this.schemas.set(pointer, validate);
    }
    return validate;
  }

  /** Validator of `#/components/schemas/<name>`. */
  component(name: string): ValidateFunction {
    return this.schema(`/components/schemas/${escapePointer(name)}`);
  }

  /** Request validators of the operation at `method` and path template. */
  request(method: string, template: string): RequestValidators {
    const key = `${method.toUpperCase()} ${template}`;
    let validators = this.requests.get(key);
    if (!validators) {
      validators = this.compileRequest(this.operation(method, template));
      this.requests.set(key, validators);
    }
    return validators;
  }

  /** The response documented for a status: the exact code, then its range (`4XX`), then `default`. */
  documentedResponse(method: string, template: string, status: number): DocumentedResponse | undefined {
    const { pointer } = this.operation(method, template);
    const responses = resolvePointer(this.document, `${pointer}/responses`);
    if (!isObject(responses)) return undefined;
    const s = String(status);
    const code = [s, `${s[0]}XX`, `${s[0]}xx`, "default"].find((c) => Object.hasOwn(responses, c));
    if (code === undefined) return undefined;
    const response = follow(this.document, responses[code], `${pointer}/responses/${escapePointer(code)}`);
    const content = isObject(response.node) && isObject(response.node.content) ? response.node.content : {};
    return { code, pointer: response.pointer, content };
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

  private operation(method: string, template: string): Operation {
    const upper = method.toUpperCase();
    const found = this.operations.find((op) => op.method === upper && op.path === template);
    if (!found) throw new Error(`the description has no operation ${upper} ${template}`);
    return found;
  }

  private parameters(op: Operation): Parameter[] {
    const parameters: Parameter[] = [];
    for (const owner of [op.pointer.slice(0, op.pointer.lastIndexOf("/")), op.pointer]) {
      const list = resolvePointer(this.document, `${owner}/parameters`);
      if (!Array.isArray(list)) continue;
      list.forEach((raw, i) => {
        const { node, pointer } = follow(this.document, raw, `${owner}/parameters/${i}`);
        if (!isObject(node)) return;
        const found: Parameter = { name: String(node.name), in: node.in as Parameter["in"], required: node.required === true, schema: `${pointer}/schema` };
        const same = parameters.findIndex((p) => p.name === found.name && p.in === found.in);
        if (same >= 0) parameters[same] = found;
        else parameters.push(found);
      });
    }
    return parameters;
  }

  private compileRequest(op: Operation): RequestValidators {
    const parameters = this.parameters(op);
    this.coercing ??= makeAjv(this.document, true);
    const coercing = this.coercing;
    const group = (where: "header" | "query" | "path") => {
      const selected = parameters.filter((p) => p.in === where);
      const names = selected.map((p) => (where === "header" ? p.name.toLowerCase() : p.name));
      const validate = coercing.compile({
        type: "object",
        properties: Object.fromEntries(selected.map((p, i) => [names[i], { $ref: `${DOCUMENT_ID}#${p.schema}` }])),
        required: names.filter((_, i) => selected[i]!.required),
      });
      return { where, names, validate };
    };
    const headers = group("header");
    const query = group("query");
    const pathParams = group("path");

    let body: ValidateFunction | undefined;
    let bodyRequired = false;
    const rawBody = resolvePointer(this.document, `${op.pointer}/requestBody`);
    if (rawBody !== undefined) {
      const requestBody = follow(this.document, rawBody, `${op.pointer}/requestBody`);
      const node = isObject(requestBody.node) ? requestBody.node : {};
      const content = isObject(node.content) ? node.content : {};
      const mediaType = Object.keys(content).find((m) => isJsonMediaType(m.toLowerCase()));
      if (mediaType !== undefined && isObject(content[mediaType]) && content[mediaType].schema !== undefined) {
        body = this.schema(`${requestBody.pointer}/content/${escapePointer(mediaType)}/schema`);
        bodyRequired = node.required === true;
      }
    }

    // Locations without parameters are skipped: nothing there can fail.
    const groups = [headers, query, pathParams].filter((g) => g.names.length > 0);
    const validate = (request: RequestParts): FieldError[] => {
      const errors: FieldError[] = [];
      if (body) {
        if (request.body === undefined) {
          if (bodyRequired) errors.push({ in: "body", path: [], keyword: "required", params: {}, message: "is required" });
        } else if (!body(request.body)) {
          errors.push(...fieldErrors(body.errors, "body"));
        }
      }
      for (const { where, names, validate: check } of groups) {
        const source: Record<string, unknown> = where === "path" ? (op.match(request.path) ?? {}) : where === "query" ? request.query : request.headers;
        const values: Record<string, unknown> = {};
        for (const name of names) if (Object.hasOwn(source, name)) values[name] = source[name];
        if (!check(values)) errors.push(...fieldErrors(check.errors, where));
      }
      return errors;
    };

    const { match: _match, ...info } = op;
    return { ...info, parameters, body, bodyRequired, pathParams: pathParams.validate, query: query.validate, headers: headers.validate, validate };
  }
}
