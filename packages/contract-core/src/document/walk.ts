import { escapePointer, follow, isObject, resolvePointer, type JsonObject } from "./pointer.js";

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

export interface NamedExample {
  /** The key under `examples`, or `example` for the single `example` member. */
  name: string;
  value: unknown;
}

/** One media type of a request body or response, its `$ref`s followed. */
export interface MediaEntry {
  mediaType: string;
  /** JSON pointer of the media type object. */
  pointer: string;
  /** JSON pointer of its schema; undefined when it documents none. */
  schema?: string;
  examples: NamedExample[];
}

export interface WalkedParameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  /** JSON pointer of the parameter's schema. */
  schema: string;
  /** The parameter object itself, after its `$ref`s. */
  object: JsonObject;
  /** Its documented examples: named ones (through their `$ref`s), then `example`. */
  examples: NamedExample[];
}

export interface WalkedRequestBody {
  pointer: string;
  required: boolean;
  media: MediaEntry[];
}

export interface WalkedResponse {
  /** The key as written: `200`, `4XX` or `default`. */
  status: string;
  /** JSON pointer of the response object, after its `$ref`s. */
  pointer: string;
  object: JsonObject;
  /** Media type objects by media type; empty when the response has no body. */
  content: JsonObject;
  media: MediaEntry[];
}

export interface WalkedOperation {
  /** The documented operationId, or the operation's pointer when it has none. */
  operationId: string;
  /** Upper case: `POST`. */
  method: string;
  /** The path template as the description writes it: `/v2/crawl/{id}`. */
  path: string;
  /** JSON pointer of the operation object in the document. */
  pointer: string;
  operation: JsonObject;
  /** Path-item and operation parameters, `$ref`s followed; the operation's replace same-named ones. */
  parameters: WalkedParameter[];
  requestBody?: WalkedRequestBody;
  /** Documented responses in document order. */
  responses: WalkedResponse[];
}

/**
 * The response documented for a status, as OpenAPI resolves it: the exact code, then its range
 * (`4XX`), then `default`.
 */
export function documentedResponseFor(responses: WalkedResponse[], status: number): WalkedResponse | undefined {
  const s = String(status);
  for (const code of [s, `${s[0]}XX`, `${s[0]}xx`, "default"]) {
    const found = responses.find((r) => r.status === code);
    if (found) return found;
  }
  return undefined;
}

/** The examples of a media type or parameter object: named ones (through their `$ref`s), then `example`. */
export function examplesOf(document: JsonObject, owner: JsonObject): NamedExample[] {
  const found: NamedExample[] = [];
  if (isObject(owner.examples)) {
    for (const [name, raw] of Object.entries(owner.examples)) {
      const { node } = follow(document, raw, "");
      if (isObject(node) && Object.hasOwn(node, "value")) found.push({ name, value: node.value });
    }
  }
  if (Object.hasOwn(owner, "example")) found.push({ name: "example", value: owner.example });
  return found;
}

function mediaOf(document: JsonObject, content: JsonObject, pointer: string): MediaEntry[] {
  return Object.entries(content).flatMap(([mediaType, raw]) => {
    const at = `${pointer}/content/${escapePointer(mediaType)}`;
    if (!isObject(raw)) return [];
    const entry: MediaEntry = { mediaType, pointer: at, examples: examplesOf(document, raw) };
    if (raw.schema !== undefined) entry.schema = `${at}/schema`;
    return [entry];
  });
}

function parametersOf(document: JsonObject, owners: string[]): WalkedParameter[] {
  const parameters: WalkedParameter[] = [];
  for (const owner of owners) {
    const list = resolvePointer(document, `${owner}/parameters`);
    if (!Array.isArray(list)) continue;
    list.forEach((raw, i) => {
      const { node, pointer } = follow(document, raw, `${owner}/parameters/${i}`);
      if (!isObject(node)) return;
      const found: WalkedParameter = {
        name: String(node.name),
        in: node.in as WalkedParameter["in"],
        required: node.required === true,
        schema: `${pointer}/schema`,
        object: node,
        examples: examplesOf(document, node),
      };
      const same = parameters.findIndex((p) => p.name === found.name && p.in === found.in);
      if (same >= 0) parameters[same] = found;
      else parameters.push(found);
    });
  }
  return parameters;
}

/** One operation of the document, walked: parameters merged, request body and responses behind their `$ref`s. */
function walkOperation(document: JsonObject, pathItemPointer: string, method: string, template: string): WalkedOperation | undefined {
  const pointer = `${pathItemPointer}/${method.toLowerCase()}`;
  const operation = resolvePointer(document, pointer);
  if (!isObject(operation)) return undefined;
  const walked: WalkedOperation = {
    operationId: typeof operation.operationId === "string" ? operation.operationId : pointer,
    method: method.toUpperCase(),
    path: template,
    pointer,
    operation,
    parameters: parametersOf(document, [pathItemPointer, pointer]),
    responses: [],
  };
  if (operation.requestBody !== undefined) {
    const body = follow(document, operation.requestBody, `${pointer}/requestBody`);
    if (isObject(body.node)) {
      const content = isObject(body.node.content) ? body.node.content : {};
      walked.requestBody = { pointer: body.pointer, required: body.node.required === true, media: mediaOf(document, content, body.pointer) };
    }
  }
  if (isObject(operation.responses)) {
    for (const [status, raw] of Object.entries(operation.responses)) {
      const response = follow(document, raw, `${pointer}/responses/${escapePointer(status)}`);
      if (!isObject(response.node)) continue;
      const content = isObject(response.node.content) ? response.node.content : {};
      walked.responses.push({ status, pointer: response.pointer, object: response.node, content, media: mediaOf(document, content, response.pointer) });
    }
  }
  return walked;
}

/**
 * One webhook of a description: the call the service makes to a receiver when `event` (its key under
 * `webhooks`, also the payload's `type`: `crawl.page`) happens. `path` holds the event too (a webhook
 * has no path), and `method` is the call's (`POST`).
 */
export type WalkedWebhook = WalkedOperation & { event: string };

/** The operations of a map of path items (`paths`, or `webhooks` keyed by event), in the order written. */
function walkPathItems(document: JsonObject, member: "paths" | "webhooks", methods: readonly string[]): WalkedOperation[] {
  const operations: WalkedOperation[] = [];
  for (const [template, raw] of Object.entries(isObject(document[member]) ? document[member] : {})) {
    const item = follow(document, raw, `/${member}/${escapePointer(template)}`);
    if (!isObject(item.node)) continue;
    for (const method of methods) {
      const walked = walkOperation(document, item.pointer, method, template);
      if (walked) operations.push(walked);
    }
  }
  return operations;
}

/** Every operation of an OpenAPI 3.x document, in the order its paths and the HTTP methods are written. */
export function walkOperations(document: JsonObject): WalkedOperation[] {
  return walkPathItems(document, "paths", HTTP_METHODS);
}

/** Every webhook of an OpenAPI 3.1 document, in the order they are written, `$ref`s followed. */
export function walkWebhooks(document: JsonObject): WalkedWebhook[] {
  return walkPathItems(document, "webhooks", ["post", "put", "patch", "get", "delete"]).map((walked) => ({ ...walked, event: walked.path }));
}
