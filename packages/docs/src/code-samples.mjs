// The code samples every operation shows: curl derived from the operation itself, and the
// hand-written TypeScript file samples/<operationId>.ts that the tests type-check against the
// typed clients.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { escapePointer, follow, isObject, resolvePointer, walkOperations } from "@api-contracts/contract-core";

/** @typedef {import("@api-contracts/contract-core").WalkedOperation} WalkedOperation */
/** @typedef {import("@api-contracts/contract-core").WalkedParameter} WalkedParameter */
/** @typedef {import("@api-contracts/contract-core").NamedExample} NamedExample */
/** @typedef {import("@api-contracts/contract-core").ApiDefinition} ApiDefinition */
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
 * @param {JsonObject} document
 * @param {WalkedParameter | undefined} parameter
 */
function parameterExample(document, parameter) {
  return parameter ? firstExample(document, parameter.examples, parameter.schema) : { found: false };
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
 * Quotes a word for a POSIX shell, so that `$` and quotes in it stay literal.
 * @param {unknown} text
 */
function shellQuote(text) {
  return `'${String(text).replaceAll("'", `'\\''`)}'`;
}

/**
 * The curl command for one operation: method, URL with example path and required query values, the
 * credentials its security scheme asks for, and the request's first named example as the body.
 * @param {JsonObject} document
 * @param {WalkedOperation} op
 * @param {Pick<ApiDefinition, "keyEnv">} api
 * @returns {string}
 */
export function curlSample(document, op, api) {
  const servers = /** @type {{ url?: string }[] | undefined} */ (op.operation.servers ?? document.servers);
  const server = String(servers?.[0]?.url ?? "").replace(/\/+$/, "");
  let globbing = false;
  const urlPath = op.path.replace(/\{([^}]+)\}/g, (_match, name) => {
    const example = parameterExample(document, op.parameters.find((p) => p.in === "path" && p.name === name));
    if (!example.found) {
      globbing = true;
      return `{${name}}`;
    }
    return encodeURIComponent(String(example.value));
  });
  // Only required query parameters: the sample is the shortest call that works.
  const query = new URLSearchParams();
  for (const parameter of op.parameters.filter((p) => p.in === "query" && p.required)) {
    const example = parameterExample(document, parameter);
    query.append(parameter.name, example.found ? String(example.value) : `<${parameter.name}>`);
  }
  const search = query.size > 0 ? `?${query}` : "";
  const lines = [`curl${globbing ? " --globoff" : ""}${op.method === "GET" ? "" : ` -X ${op.method}`} ${shellQuote(`${server}${urlPath}${search}`)}`];

  const requirements = /** @type {Record<string, unknown>[]} */ (op.operation.security ?? document.security ?? []);
  for (const schemeName of Object.keys(requirements[0] ?? {})) {
    const at = `/components/securitySchemes/${escapePointer(schemeName)}`;
    const scheme = /** @type {any} */ (follow(document, resolvePointer(document, at), at).node);
    if (scheme?.type === "http" && String(scheme.scheme).toLowerCase() === "bearer") {
      lines.push(`-H "Authorization: Bearer $${api.keyEnv}"`);
    } else if (scheme?.type === "http" && String(scheme.scheme).toLowerCase() === "basic") {
      lines.push(`-u "$${api.keyEnv}"`);
    } else if (scheme?.type === "apiKey" && scheme.in === "header") {
      lines.push(`-H "${scheme.name}: $${api.keyEnv}"`);
    }
  }
  for (const parameter of op.parameters.filter((p) => p.in === "header" && p.required)) {
    const example = parameterExample(document, parameter);
    lines.push(`-H ${shellQuote(`${parameter.name}: ${example.found ? example.value : ""}`)}`);
  }

  const body = jsonBodyExample(document, op);
  if (body) {
    lines.push(`-H 'Content-Type: application/json'`);
    if (body.found) lines.push(`-d ${shellQuote(JSON.stringify(body.value, null, 2))}`);
  }
  return lines.join(" \\\n  ");
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
 * A copy of the document whose every operation carries `x-codeSamples` (curl and TypeScript).
 * Throws, naming them all, when operations lack a TypeScript sample.
 * @param {JsonObject} document
 * @param {Pick<ApiDefinition, "keyEnv">} api
 * @param {string} samplesDir
 */
export function withCodeSamples(document, api, samplesDir) {
  const copy = structuredClone(document);
  const operations = sampledOperations(copy);
  const { missing } = sampleCoverage(operations.map((op) => op.operationId), listSampleFiles(samplesDir));
  if (missing.length > 0) {
    throw new Error(`no TypeScript sample for ${missing.map((id) => `samples/${id}.ts`).join(", ")}`);
  }
  for (const op of operations) {
    const typescript = readFileSync(samplePath(samplesDir, op.operationId), "utf8").trimEnd();
    op.operation["x-codeSamples"] = [
      { lang: "curl", label: "curl", source: curlSample(copy, op, api) },
      { lang: "TypeScript", label: "TypeScript", source: typescript },
    ];
  }
  return copy;
}
