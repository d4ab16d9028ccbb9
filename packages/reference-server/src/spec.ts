import { createRequire } from "node:module";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export type ApiName = "entitlements" | "webdata";

type Json = Record<string, unknown>;

/** One parameter of an operation, after its `$ref` (if any) has been followed. */
interface ParameterInfo {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  pointer: string;
}

/** Validators of one operation, compiled from the bundle's own schemas. */
export interface OperationValidators {
  operationId: string;
  method: string;
  path: string;
  /** Validates the JSON body; undefined when the operation takes none. */
  body?: ValidateFunction;
  bodyRequired: boolean;
  /** Validates (and coerces) the path parameters as one object. */
  params: ValidateFunction;
  /** Validates (and coerces) the query string as one object. */
  query: ValidateFunction;
  /** Validates the documented request headers (lower-case names) as one object. */
  headers: ValidateFunction;
}

const require = createRequire(import.meta.url);

/** Reads the bundled OpenAPI document of one API from `@api-contracts/spec`. */
export function loadBundle(api: ApiName): Json {
  return require(`@api-contracts/spec/${api}.json`) as Json;
}

function escapePointer(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

function unescapePointer(token: string): string {
  return token.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** Follows a local JSON pointer (`#/a/b`) inside the bundle. */
function resolvePointer(doc: Json, pointer: string): unknown {
  const tokens = pointer.replace(/^#\/?/, "").split("/").filter((t) => t !== "").map(unescapePointer);
  let node: unknown = doc;
  for (const token of tokens) {
    if (node === null || typeof node !== "object") throw new Error(`bundle has no ${pointer}`);
    node = (node as Json)[token];
  }
  if (node === undefined) throw new Error(`bundle has no ${pointer}`);
  return node;
}

/**
 * Follows OpenAPI-level `$ref`s (request bodies, parameters, responses are not JSON Schemas, so
 * ajv does not follow them) and returns the pointer of the object finally reached.
 */
function follow(doc: Json, pointer: string): { pointer: string; node: Json } {
  let current = pointer;
  for (let hops = 0; hops < 20; hops++) {
    const node = resolvePointer(doc, current) as Json;
    if (typeof node.$ref !== "string") return { pointer: current, node };
    current = node.$ref;
  }
  throw new Error(`too many $ref hops from ${pointer}`);
}

const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const;

/**
 * Compiles validators for requests and responses of one API from its bundle. The whole bundle
 * is registered under an `$id`, and every validator references the bundle by JSON pointer, so
 * the rules live only in the spec.
 */
export class SpecValidators {
  readonly bundle: Json;
  readonly id: string;
  private readonly strictAjv: Ajv2020;
  private readonly coercingAjv: Ajv2020;
  private readonly operations = new Map<string, OperationValidators>();
  private readonly responseCache = new Map<string, ValidateFunction | null>();

  private static readonly shared = new Map<ApiName, SpecValidators>();

  /** One instance per API for the whole process: compiled validators are reused by every server. */
  static for(api: ApiName): SpecValidators {
    let instance = SpecValidators.shared.get(api);
    if (!instance) {
      instance = new SpecValidators(api);
      SpecValidators.shared.set(api, instance);
    }
    return instance;
  }

  constructor(readonly api: ApiName, bundle: Json = loadBundle(api)) {
    this.bundle = bundle;
    this.id = `https://api-contracts.invalid/${api}.openapi.json`;
    this.strictAjv = this.makeAjv(false);
    this.coercingAjv = this.makeAjv(true);
  }

  private makeAjv(coerce: boolean): Ajv2020 {
    // OpenAPI adds keywords JSON Schema does not know (example, discriminator, ...): not strict.
    const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes: coerce ? "array" : false, useDefaults: false, logger: false, verbose: true });
    addFormats(ajv);
    ajv.addSchema({ ...this.bundle, $id: this.id });
    return ajv;
  }

  private ref(pointer: string): Json {
    return { $ref: `${this.id}${pointer}` };
  }

  /** Validators of the operation at `method path`, compiled on first use. */
  operation(method: string, path: string): OperationValidators {
    const key = `${method.toLowerCase()} ${path}`;
    const cached = this.operations.get(key);
    if (cached) return cached;
    const opPointer = `#/paths/${escapePointer(path)}/${method.toLowerCase()}`;
    const op = resolvePointer(this.bundle, opPointer) as Json;
    const pathItemPointer = `#/paths/${escapePointer(path)}`;
    const pathItem = resolvePointer(this.bundle, pathItemPointer) as Json;

    const parameters: ParameterInfo[] = [];
    const collect = (owner: string, list: unknown): void => {
      if (!Array.isArray(list)) return;
      list.forEach((_, i) => {
        const { pointer, node } = follow(this.bundle, `${owner}/parameters/${i}`);
        const info = { name: String(node.name), in: node.in as ParameterInfo["in"], required: node.required === true, pointer: `${pointer}/schema` };
        const existing = parameters.findIndex((p) => p.name === info.name && p.in === info.in);
        if (existing >= 0) parameters[existing] = info;
        else parameters.push(info);
      });
    };
    collect(pathItemPointer, pathItem.parameters);
    collect(opPointer, op.parameters);

    const group = (where: ParameterInfo["in"], lower: boolean): ValidateFunction => {
      const selected = parameters.filter((p) => p.in === where);
      const name = (p: ParameterInfo): string => (lower ? p.name.toLowerCase() : p.name);
      return this.coercingAjv.compile({
        type: "object",
        properties: Object.fromEntries(selected.map((p) => [name(p), this.ref(p.pointer)])),
        required: selected.filter((p) => p.required).map(name),
      });
    };

    let body: ValidateFunction | undefined;
    let bodyRequired = false;
    if (op.requestBody !== undefined) {
      const { pointer, node } = follow(this.bundle, `${opPointer}/requestBody`);
      bodyRequired = node.required === true;
      body = this.strictAjv.compile(this.ref(`${pointer}/content/${escapePointer("application/json")}/schema`));
    }

    const validators: OperationValidators = {
      operationId: String(op.operationId),
      method: method.toUpperCase(),
      path,
      body,
      bodyRequired,
      params: group("path", false),
      query: group("query", false),
      headers: group("header", true),
    };
    this.operations.set(key, validators);
    return validators;
  }

  /** Every `method path` pair the bundle describes. */
  listOperations(): Array<{ method: string; path: string; operationId: string }> {
    const paths = this.bundle.paths as Record<string, Json>;
    const out: Array<{ method: string; path: string; operationId: string }> = [];
    for (const [path, item] of Object.entries(paths)) {
      for (const method of HTTP_METHODS) {
        const op = item[method] as Json | undefined;
        if (op) out.push({ method: method.toUpperCase(), path, operationId: String(op.operationId) });
      }
    }
    return out;
  }

  /**
   * Validator of the JSON body documented for `status` of an operation (falling back to the
   * `4XX`/`5XX` range and `default`), or null when the status is not documented with a JSON body.
   */
  response(method: string, path: string, status: number): ValidateFunction | null {
    const key = `${method.toLowerCase()} ${path} ${status}`;
    const cached = this.responseCache.get(key);
    if (cached !== undefined) return cached;
    const opPointer = `#/paths/${escapePointer(path)}/${method.toLowerCase()}`;
    const op = resolvePointer(this.bundle, opPointer) as Json;
    const responses = (op.responses ?? {}) as Json;
    const candidates = [String(status), `${String(status)[0]}XX`, "default"];
    const code = candidates.find((c) => c in responses);
    let validator: ValidateFunction | null = null;
    if (code !== undefined) {
      const { pointer, node } = follow(this.bundle, `${opPointer}/responses/${escapePointer(code)}`);
      const content = node.content as Json | undefined;
      if (content?.["application/json"]) {
        validator = this.strictAjv.compile(this.ref(`${pointer}/content/${escapePointer("application/json")}/schema`));
      }
    }
    this.responseCache.set(key, validator);
    return validator;
  }

  /** Validator of a named component schema (`#/components/schemas/<name>`). */
  component(name: string): ValidateFunction {
    const ref = `${this.id}#/components/schemas/${escapePointer(name)}`;
    return this.strictAjv.getSchema(ref) ?? this.strictAjv.compile({ $ref: ref });
  }
}

/** Field path of an ajv error in dotted form (`lock.lock_id`, `scrapeOptions.formats[0]`). */
export function errorField(error: ErrorObject): string {
  const parts = error.instancePath
    .split("/")
    .filter((p) => p !== "")
    .map(unescapePointer);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "required" && typeof params.missingProperty === "string") parts.push(params.missingProperty);
  if (error.keyword === "additionalProperties" && typeof params.additionalProperty === "string") parts.push(params.additionalProperty);
  if (error.keyword === "unevaluatedProperties" && typeof params.unevaluatedProperty === "string") parts.push(params.unevaluatedProperty);
  return parts.reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), "");
}

/** The error path as an array (numbers for array indices), as zod-style `details` carry it. */
export function errorPath(error: ErrorObject): Array<string | number> {
  return errorField(error)
    .split(/\.|\[|\]/)
    .filter((p) => p !== "")
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

/** Members named by a schema made only of `required` (as in `oneOf: [{required: [a]}, {required: [b]}]`). */
function requiredOnly(schema: unknown): string[] | null {
  if (schema === null || typeof schema !== "object") return null;
  const keys = Object.keys(schema).filter((k) => k !== "title" && k !== "description");
  const required = (schema as { required?: unknown }).required;
  return keys.length === 1 && Array.isArray(required) ? required.map(String) : null;
}

/** Readable message of an ajv error that names the field. */
export function describeError(error: ErrorObject, where = "body"): string {
  const field = errorField(error);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return `${field} is required`;
    case "additionalProperties":
    case "unevaluatedProperties":
      return `${field} is not a recognised member of the ${where}`;
    case "enum":
      return `${field || where} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "const":
      return `${field || where} must be ${JSON.stringify(params.allowedValue)}`;
    case "not": {
      const forbidden = (error.schema as { required?: unknown } | undefined)?.required;
      if (Array.isArray(forbidden)) return `${forbidden.join(", ")} must not be sent${field ? ` in ${field}` : ""} together with the other members given`;
      return `${field || where} ${error.message ?? "is invalid"}`;
    }
    case "oneOf":
    case "anyOf": {
      const branches = Array.isArray(error.schema) ? error.schema.map(requiredOnly) : [];
      if (branches.length > 0 && branches.every((b) => b !== null)) {
        const names = branches.flat().join(", ");
        return `${field ? `${field}: ` : ""}exactly one of ${names} is required`;
      }
      return `${field || where} ${error.message ?? "is invalid"}`;
    }
    default:
      return `${field || where} ${error.message ?? "is invalid"}`;
  }
}

/**
 * Picks the errors that explain a failed validation. ajv reports every branch of a failed
 * `oneOf`/`anyOf` plus the combinator itself: when the branches only say which members are
 * required, the combinator's own error says it best; otherwise the leaf errors name the field.
 */
export function usefulErrors(errors: ErrorObject[] | null | undefined): ErrorObject[] {
  let all = (errors ?? []).filter((e) => e.keyword !== "if");
  for (const combinator of all.filter((e) => e.keyword === "oneOf" || e.keyword === "anyOf")) {
    const branches = Array.isArray(combinator.schema) ? combinator.schema.map(requiredOnly) : [];
    const requiredBranches = branches.length > 0 && branches.every((b) => b !== null);
    all = all.filter((e) => (requiredBranches ? !e.schemaPath.startsWith(`${combinator.schemaPath}/`) : e !== combinator));
  }
  return all.length > 0 ? all : (errors ?? []);
}
