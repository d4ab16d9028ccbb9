import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import type { ValidateFunction } from "ajv/dist/2020.js";
import { OpenApiValidators, escapePointer, follow, resolvePointer, type JsonObject as Json } from "@api-contracts/contract-core";
import { loadPrism, type PrismOperation } from "./prism.js";
import { toViolation, type RequestValidator } from "./validation.js";

export type Service = "entitlements" | "webdata";
export const services: readonly Service[] = ["webdata", "entitlements"];

export interface NamedExample {
  name: string;
  value: unknown;
}

/** One documented error answer (status and media type) of one operation. */
export interface DocumentedError {
  status: number;
  operationId: string;
  examples: NamedExample[];
  validate: ValidateFunction;
}

export interface ApiDescription {
  service: Service;
  document: Json;
  operations: PrismOperation[];
  /** Documented error answers keyed by `METHOD path-template`. */
  errorsByOperation: Map<string, DocumentedError[]>;
  /** Every documented error answer of the API, in document order. */
  allErrors: DocumentedError[];
  /** The request checks of the operation at `method` and path template, compiled on first use. */
  requestValidator(method: string, template: string): RequestValidator;
}

const require = createRequire(import.meta.url);

export function bundlePath(service: Service): string {
  return require.resolve(`@api-contracts/spec/${service}.json`);
}

export function operationKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}

function collectExamples(document: Json, media: Json): NamedExample[] {
  const examples: NamedExample[] = [];
  const named = media.examples;
  if (named && typeof named === "object") {
    for (const [name, raw] of Object.entries(named as Json)) {
      const example = follow(document, raw, "").node as Json | undefined;
      if (example && "value" in example) examples.push({ name, value: example.value });
    }
  }
  if ("example" in media) examples.push({ name: "example", value: media.example });
  return examples;
}

function buildErrorCatalog(validators: OpenApiValidators) {
  const { document } = validators;
  const byOperation = new Map<string, DocumentedError[]>();
  const all: DocumentedError[] = [];
  for (const { method, path, pointer, operationId } of validators.listOperations()) {
    const list: DocumentedError[] = [];
    const responses = (resolvePointer(document, `${pointer}/responses`) ?? {}) as Json;
    for (const [code, rawResponse] of Object.entries(responses)) {
      const status = Number(code);
      if (!Number.isInteger(status) || status < 400) continue;
      const response = follow(document, rawResponse, `${pointer}/responses/${code}`);
      const content = ((response.node as Json | undefined)?.content ?? {}) as Json;
      const mediaType = Object.keys(content).find((m) => /json/i.test(m));
      if (!mediaType) continue;
      const media = content[mediaType] as Json;
      if (!media.schema) continue;
      const schemaPointer = `${response.pointer}/content/${escapePointer(mediaType)}/schema`;
      // Compiled on first use: most error answers are never served.
      const validate = ((data: unknown) => {
        const compiled = validators.schema(schemaPointer);
        const ok = compiled(data);
        validate.errors = compiled.errors;
        return ok;
      }) as ValidateFunction;
      const entry: DocumentedError = { status, operationId, examples: collectExamples(document, media), validate };
      list.push(entry);
      all.push(entry);
    }
    byOperation.set(operationKey(method, path), list);
  }
  return { byOperation, all };
}

const cache = new Map<string, { mtimeMs: number; description: Promise<ApiDescription> }>();

/** Loads an API's bundle and prepares it for Prism; cached per process until the bundle changes. */
export function loadApi(service: Service): Promise<ApiDescription> {
  const file = bundlePath(service);
  const { mtimeMs } = statSync(file);
  const hit = cache.get(file);
  if (hit && hit.mtimeMs === mtimeMs) return hit.description;
  const description = (async (): Promise<ApiDescription> => {
    const text = readFileSync(file, "utf8");
    const document = JSON.parse(text) as Json;
    // Prism dereferences in place, so it gets its own copy of the document.
    const operations = await loadPrism().getHttpOperationsFromSpec(JSON.parse(text) as object);
    const validators = new OpenApiValidators(document);
    const { byOperation, all } = buildErrorCatalog(validators);
    const requestValidator = (method: string, template: string): RequestValidator => {
      const { validate } = validators.request(method, template);
      return (parts) => validate(parts).map(toViolation);
    };
    return { service, document, operations, errorsByOperation: byOperation, allErrors: all, requestValidator };
  })();
  cache.set(file, { mtimeMs, description });
  description.catch(() => cache.delete(file));
  return description;
}
