import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { Ajv2020, type ValidateFunction, type ErrorObject } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

export type Service = "entitlements" | "webdata";

/** One request and its answer, as seen on the wire. */
export interface Exchange {
  method: string;
  /** Request path relative to the base URL, without the query string. */
  path: string;
  status: number;
  contentType: string | null;
  bodyText: string;
}

export interface Verdict {
  ok: boolean;
  /** Why the answer passed or failed, in one line. */
  reason: string;
  /** The parsed body when it was JSON. */
  body?: unknown;
}

export interface OperationRef {
  operationId: string;
  method: string;
  pathTemplate: string;
  /** JSON pointer of the operation object inside the bundle. */
  pointer: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;

function escapePointer(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function mediaTypeOf(contentType: string | null): string | null {
  if (!contentType) return null;
  return contentType.split(";")[0]!.trim().toLowerCase();
}

function isJsonMediaType(mediaType: string): boolean {
  return mediaType === "application/json" || mediaType.endsWith("+json");
}

/** Loads the bundled description of one API from `@api-contracts/spec`. */
export function loadBundledSpec(service: Service): JsonObject {
  const require = createRequire(import.meta.url);
  const file = require.resolve(`@api-contracts/spec/${service}.json`);
  return JSON.parse(readFileSync(file, "utf8")) as JsonObject;
}

/**
 * An OpenAPI 3.1 bundle turned into a judge of answers: it finds the operation an exchange
 * belongs to, and says whether status, content type and body are the ones the contract allows.
 */
export class Contract {
  readonly doc: JsonObject;
  private readonly ajv: Ajv2020;
  private readonly docId: string;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly operations: (OperationRef & { matcher: RegExp })[] = [];

  constructor(doc: JsonObject, name = "contract") {
    this.doc = doc;
    this.docId = `urn:api-contracts:${name}`;
    // OpenAPI adds keywords (discriminator, xml, externalDocs, example) that are not JSON Schema;
    // they carry no validation meaning, so unknown keywords are ignored rather than rejected.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats.default(this.ajv);
    this.ajv.addSchema(doc as object, this.docId);

    const paths = isObject(doc.paths) ? doc.paths : {};
    for (const [pathTemplate, rawItem] of Object.entries(paths)) {
      const { value: item, pointer: itemPointer } = this.deref(rawItem, `/paths/${escapePointer(pathTemplate)}`);
      if (!isObject(item)) continue;
      for (const method of METHODS) {
        const op = item[method];
        if (!isObject(op) || typeof op.operationId !== "string") continue;
        const pattern = pathTemplate
          .split(/(\{[^}]+\})/)
          .map((part) => (part.startsWith("{") ? "[^/]+" : part.replace(/[.*+?^$()|[\]\\]/g, "\\$&")))
          .join("");
        this.operations.push({
          operationId: op.operationId,
          method: method.toUpperCase(),
          pathTemplate,
          pointer: `${itemPointer}/${method}`,
          matcher: new RegExp(`^${pattern}$`),
        });
      }
    }
  }

  /** Every operation of the contract, in document order. */
  listOperations(): OperationRef[] {
    return this.operations.map(({ matcher: _matcher, ...ref }) => ref);
  }

  operation(operationId: string): OperationRef {
    const found = this.operations.find((op) => op.operationId === operationId);
    if (!found) throw new Error(`The contract has no operation ${operationId}`);
    const { matcher: _matcher, ...ref } = found;
    return ref;
  }

  /** The operation a request hits, by method and path; concrete paths win over templated ones. */
  findOperation(method: string, path: string): OperationRef | undefined {
    const candidates = this.operations.filter((op) => op.method === method.toUpperCase() && op.matcher.test(path));
    candidates.sort((a, b) => (a.pathTemplate.match(/\{/g)?.length ?? 0) - (b.pathTemplate.match(/\{/g)?.length ?? 0));
    const best = candidates[0];
    if (!best) return undefined;
    const { matcher: _matcher, ...ref } = best;
    return ref;
  }

  /** The operation object, with path-item and operation parameters merged. */
  operationObject(ref: OperationRef): JsonObject {
    const op = this.at(ref.pointer);
    return isObject(op) ? op : {};
  }

  /** Status codes the operation documents, as written in the contract ("200", "4XX", "default"). */
  documentedStatuses(operationId: string): string[] {
    const op = this.operationObject(this.operation(operationId));
    return isObject(op.responses) ? Object.keys(op.responses) : [];
  }

  /** The JSON Schema of the request body (application/json), and its pointer. */
  requestBodySchema(operationId: string): { schema: JsonObject; pointer: string } | undefined {
    const ref = this.operation(operationId);
    const { value: body, pointer } = this.deref(this.operationObject(ref).requestBody, `${ref.pointer}/requestBody`);
    if (!isObject(body) || !isObject(body.content)) return undefined;
    const media = body.content["application/json"];
    if (!isObject(media) || !isObject(media.schema)) return undefined;
    return this.derefSchema(media.schema, `${pointer}/content/application~1json/schema`);
  }

  /** A parameter of the operation (path, query or header), with its schema resolved. */
  parameter(operationId: string, location: string, name: string): { schema: JsonObject; pointer: string } | undefined {
    const ref = this.operation(operationId);
    const itemPointer = ref.pointer.slice(0, ref.pointer.lastIndexOf("/"));
    for (const base of [ref.pointer, itemPointer]) {
      const list = this.at(`${base}/parameters`);
      if (!Array.isArray(list)) continue;
      for (let i = 0; i < list.length; i++) {
        const { value: param, pointer } = this.deref(list[i], `${base}/parameters/${i}`);
        if (isObject(param) && param.in === location && param.name === name && isObject(param.schema)) {
          return this.derefSchema(param.schema, `${pointer}/schema`);
        }
      }
    }
    return undefined;
  }

  /** Validates any value against the schema at a pointer of the bundle. */
  validate(pointer: string, value: unknown): { ok: boolean; errors: string } {
    const validator = this.validatorFor(pointer);
    const ok = validator(value) as boolean;
    return { ok, errors: ok ? "" : describeErrors(validator.errors) };
  }

  /** Judges one answer against the contract of the operation the request hit. */
  judge(exchange: Exchange): Verdict {
    const ref = this.findOperation(exchange.method, exchange.path);
    if (!ref) return { ok: false, reason: `${exchange.method} ${exchange.path} is not an operation of the contract` };
    const op = this.operationObject(ref);
    const responses = isObject(op.responses) ? op.responses : {};
    const status = String(exchange.status);
    const key = [status, `${status[0]}XX`, `${status[0]}xx`, "default"].find((k) => k in responses);
    if (!key) {
      return {
        ok: false,
        reason: `status ${status} is not documented for ${ref.operationId} (documented: ${Object.keys(responses).join(", ")})`,
      };
    }
    const { value: response, pointer: responsePointer } = this.deref(responses[key], `${ref.pointer}/responses/${escapePointer(key)}`);
    const content = isObject(response) && isObject(response.content) ? response.content : undefined;
    const mediaType = mediaTypeOf(exchange.contentType);

    if (!content || Object.keys(content).length === 0) {
      if (exchange.bodyText.trim() === "") return { ok: true, reason: `${status} with no body, as documented` };
      return { ok: false, reason: `${status} carries a body, but the contract documents none for ${ref.operationId}` };
    }
    if (!mediaType) return { ok: false, reason: `${status} has no Content-Type (documented: ${Object.keys(content).join(", ")})` };
    const mediaKey = Object.keys(content).find((k) => {
      const documented = k.toLowerCase();
      if (documented === mediaType || documented === "*/*") return true;
      return documented.endsWith("/*") && mediaType.startsWith(documented.slice(0, -1));
    });
    if (!mediaKey) {
      return { ok: false, reason: `${status} Content-Type ${mediaType} is not documented (documented: ${Object.keys(content).join(", ")})` };
    }
    const media = content[mediaKey];
    let body: unknown = exchange.bodyText;
    if (isJsonMediaType(mediaType)) {
      try {
        body = JSON.parse(exchange.bodyText);
      } catch {
        return { ok: false, reason: `${status} body is not valid JSON although Content-Type is ${mediaType}` };
      }
    }
    if (!isObject(media) || !isObject(media.schema)) return { ok: true, reason: `${status} ${mediaType} (no schema to judge)`, body };
    const schemaPointer = `${responsePointer}/content/${escapePointer(mediaKey)}/schema`;
    const result = this.validate(schemaPointer, body);
    if (!result.ok) return { ok: false, reason: `${status} body does not match the contract: ${result.errors}`, body };
    return { ok: true, reason: `${status} ${mediaType} matches the contract`, body };
  }

  private validatorFor(pointer: string): ValidateFunction {
    let validator = this.validators.get(pointer);
    if (!validator) {
      validator = this.ajv.compile({ $ref: `${this.docId}#${pointer}` });
      this.validators.set(pointer, validator);
    }
    return validator;
  }

  /** Reads the value at a JSON pointer of the bundle. */
  at(pointer: string): Json | undefined {
    let node: Json | undefined = this.doc;
    for (const raw of pointer.split("/").slice(1)) {
      const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      if (Array.isArray(node)) node = node[Number(token)];
      else if (isObject(node)) node = node[token];
      else return undefined;
    }
    return node;
  }

  /** Follows local `$ref`s of OpenAPI objects (responses, parameters, bodies, path items). */
  private deref(value: Json | undefined, pointer: string): { value: Json | undefined; pointer: string } {
    let current = value;
    let at = pointer;
    for (let hops = 0; hops < 20 && isObject(current) && typeof current.$ref === "string"; hops++) {
      const target: string = current.$ref;
      if (!target.startsWith("#")) throw new Error(`Only local $refs are supported in the bundle (found ${target})`);
      at = decodeURIComponent(target.slice(1));
      current = this.at(at);
    }
    return { value: current, pointer: at };
  }

  /** Resolves a schema that is only a `$ref`, so its members can be inspected. */
  private derefSchema(schema: JsonObject, pointer: string): { schema: JsonObject; pointer: string } {
    const { value, pointer: at } = this.deref(schema, pointer);
    return { schema: isObject(value) ? value : {}, pointer: at };
  }

  /** A schema found at a pointer, following a `$ref` if it is only one. */
  schemaAt(pointer: string): JsonObject {
    const node = this.at(pointer);
    return isObject(node) ? this.derefSchema(node, pointer).schema : {};
  }
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors?.length) return "invalid";
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const error of errors) {
    const where = error.instancePath || "(root)";
    let text = `${where} ${error.message ?? "is invalid"}`;
    if (error.keyword === "additionalProperties" || error.keyword === "unevaluatedProperties") {
      const extra = (error.params as { additionalProperty?: string; unevaluatedProperty?: string });
      text += ` (${extra.additionalProperty ?? extra.unevaluatedProperty})`;
    }
    if (error.keyword === "enum") text += ` (${JSON.stringify((error.params as { allowedValues?: unknown }).allowedValues)})`;
    if (!seen.has(text)) {
      seen.add(text);
      parts.push(text);
    }
    if (parts.length === 3) break;
  }
  return parts.join("; ");
}
