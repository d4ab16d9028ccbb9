// The code samples every operation shows: curl derived from the operation itself (contract-core's
// curlCommand, the key read from the variable the API's facts name), and, for an API with a typed
// client, the hand-written TypeScript file samples/<operationId>.ts that the tests type-check.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { curlCommand, fillPath, follow, isObject, queryString, resolvePointer, walkOperations } from "@api-contracts/contract-core";

/** @typedef {import("@api-contracts/contract-core").WalkedOperation} WalkedOperation */
/** @typedef {import("@api-contracts/contract-core").NamedExample} NamedExample */
/** @typedef {import("@api-contracts/contract-core").ApiEntry} ApiEntry */
/** @typedef {import("@api-contracts/contract-core").JsonObject} JsonObject */

/**
 * The value a reader would most likely send: the first documented example, then the schema's own
 * example, default or first enum member.
 * @param {JsonObject} document
 * @param {NamedExample[]} examples as the walker lists them: named examples, then `example`
 * @param {string | undefined} schemaPointer
 * @returns {{ found: boolean, value?: unknown }}
 */
export function firstExample(document, examples, schemaPointer) {
  if (examples.length > 0) return { found: true, value: examples[0]?.value };
  const schema = schemaPointer === undefined ? undefined : follow(document, resolvePointer(document, schemaPointer), schemaPointer).node;
  if (isObject(schema)) {
    if (Array.isArray(schema.examples) && schema.examples.length > 0) return { found: true, value: schema.examples[0] };
    if ("example" in schema) return { found: true, value: schema.example };
    if ("default" in schema) return { found: true, value: schema.default };
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return { found: true, value: schema.enum[0] };
  }
  return { found: false };
}

/**
 * Example values of an operation's parameters in one place, by name; the required ones only, except in the path.
 * @param {JsonObject} document
 * @param {WalkedOperation} op
 * @param {"path" | "query" | "header"} where
 */
function parameterExamples(document, op, where) {
  /** @type {Record<string, unknown>} */
  const values = {};
  for (const parameter of op.parameters.filter((p) => p.in === where && (where === "path" || p.required))) {
    const example = firstExample(document, parameter.examples, parameter.schema);
    if (example.found) values[parameter.name] = example.value;
    else if (where !== "path") values[parameter.name] = where === "query" ? `<${parameter.name}>` : "";
  }
  return values;
}

/**
 * The JSON body a sample sends: the request's first documented example; undefined when the
 * operation takes no JSON body.
 * @param {JsonObject} document
 * @param {WalkedOperation} op
 */
export function jsonBodyExample(document, op) {
  const media = op.requestBody?.media.find((entry) => entry.mediaType === "application/json");
  return media && firstExample(document, media.examples, media.schema);
}

/**
 * The curl command for one operation: method, URL with example path and required query values, the
 * key from the API's variable when the operation asks for one, and the request's first named example
 * as the body.
 * @param {JsonObject} document
 * @param {WalkedOperation} op
 * @param {Pick<ApiEntry, "key">} api
 * @param {string} [baseUrl] where to send it; default the operation's (or the description's) first server
 * @returns {string}
 */
export function curlSample(document, op, api, baseUrl) {
  const servers = /** @type {{ url?: string }[] | undefined} */ (op.operation.servers ?? document.servers);
  const server = String(baseUrl ?? servers?.[0]?.url ?? "").replace(/\/+$/, "");
  // A path value without an example stays a `{name}` for the reader to fill in.
  const url = `${server}${fillPath(op.path, parameterExamples(document, op, "path"), (name) => `{${name}}`)}${queryString(parameterExamples(document, op, "query"))}`;
  /** @type {Record<string, string>} */
  const headers = {};
  for (const [name, value] of Object.entries(parameterExamples(document, op, "header"))) headers[name] = String(value);
  const body = jsonBodyExample(document, op);
  if (body) headers["Content-Type"] = "application/json";
  const requirements = /** @type {Record<string, unknown>[]} */ (op.operation.security ?? document.security ?? []);
  const keyVariable = Object.keys(requirements[0] ?? {}).length > 0 ? api.key.variable : undefined;
  return curlCommand(
    { method: op.method, url, headers, ...(body?.found ? { body: JSON.stringify(body.value, null, 2) } : {}) },
    { keyVariable, multiline: true },
  );
}

/**
 * Path of the TypeScript sample of an operation.
 * @param {string} samplesDir
 * @param {string} operationId
 */
export function samplePath(samplesDir, operationId) {
  return path.join(samplesDir, `${operationId}.ts`);
}

/**
 * Compares the operations with the sample files: which operations have no sample, and which
 * samples belong to no operation (left behind after a rename).
 * @param {string[]} operationIds
 * @param {string[]} sampleFiles file names inside the samples directory
 */
export function sampleCoverage(operationIds, sampleFiles) {
  const samples = new Set(sampleFiles.filter((f) => f.endsWith(".ts")).map((f) => f.slice(0, -3)));
  const ids = new Set(operationIds);
  return {
    missing: [...ids].filter((id) => !samples.has(id)).sort(),
    orphaned: [...samples].filter((id) => !ids.has(id)).sort(),
  };
}

/**
 * The sample files in a directory (none when it does not exist).
 * @param {string} samplesDir
 */
export function listSampleFiles(samplesDir) {
  return existsSync(samplesDir) ? readdirSync(samplesDir).filter((f) => f.endsWith(".ts")) : [];
}

/**
 * The operations of a document, refusing one without an operationId: its samples are named by it.
 * @param {JsonObject} document
 */
export function sampledOperations(document) {
  const operations = walkOperations(document);
  const unnamed = operations.filter((op) => typeof op.operation.operationId !== "string");
  if (unnamed.length > 0) throw new Error(`no operationId on ${unnamed.map((op) => `${op.method} ${op.path}`).join(", ")}`);
  return operations;
}

/**
 * A copy of the document whose every operation carries `x-codeSamples`: curl, and the TypeScript
 * sample where the API has a client. With `strict` (the build), an API with a client must have a
 * sample for every operation: it throws, naming them all; without it (a page the docs server
 * renders for an API it has no built page for) an operation without one shows curl alone.
 * @param {JsonObject} document
 * @param {Pick<ApiEntry, "key" | "client">} api
 * @param {string} samplesDir
 * @param {{ strict?: boolean }} [options]
 */
export function withCodeSamples(document, api, samplesDir, { strict = true } = {}) {
  const copy = structuredClone(document);
  const operations = sampledOperations(copy);
  const files = new Set(api.client ? listSampleFiles(samplesDir) : []);
  const { missing } = sampleCoverage(operations.map((op) => op.operationId), [...files]);
  if (api.client && strict && missing.length > 0) {
    throw new Error(`no TypeScript sample for ${missing.map((id) => `samples/${id}.ts`).join(", ")}`);
  }
  for (const op of operations) {
    const samples = [{ lang: "curl", label: "curl", source: curlSample(copy, op, api) }];
    if (files.has(`${op.operationId}.ts`)) samples.push({ lang: "TypeScript", label: "TypeScript", source: readFileSync(samplePath(samplesDir, op.operationId), "utf8").trimEnd() });
    op.operation["x-codeSamples"] = samples;
  }
  return copy;
}
