// The code samples every operation shows: curl derived from the operation itself, and the
// hand-written TypeScript file samples/<operationId>.ts that the tests type-check against the
// typed clients.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { listOperations, resolveRef } from "./openapi.mjs";

/** @typedef {import("./openapi.mjs").Operation} Operation */
/** @typedef {import("./apis.mjs").DocsApi} DocsApi */

/**
 * The value a reader would most likely send: the first named example, then `example`, then the
 * schema's own example, default or first enum member.
 * @param {any} document
 * @param {any} holder a parameter or a media type object
 * @returns {{ found: boolean, value?: any }}
 */
export function firstExample(document, holder) {
  const examples = holder?.examples;
  if (examples && typeof examples === "object" && !Array.isArray(examples)) {
    for (const raw of Object.values(examples)) {
      const example = resolveRef(document, raw);
      if (example && "value" in example) return { found: true, value: example.value };
    }
  }
  if (holder && "example" in holder) return { found: true, value: holder.example };
  const schema = resolveRef(document, holder?.schema);
  if (schema && typeof schema === "object") {
    if (Array.isArray(schema.examples) && schema.examples.length > 0) return { found: true, value: schema.examples[0] };
    if ("example" in schema) return { found: true, value: schema.example };
    if ("default" in schema) return { found: true, value: schema.default };
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return { found: true, value: schema.enum[0] };
  }
  return { found: false };
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
 * @param {any} document
 * @param {Operation} op
 * @param {Pick<DocsApi, "keyEnv">} api
 * @returns {string}
 */
export function curlSample(document, op, api) {
  const server = String((op.operation.servers ?? document.servers ?? [{ url: "" }])[0]?.url ?? "").replace(/\/+$/, "");
  let globbing = false;
  const urlPath = op.path.replace(/\{([^}]+)\}/g, (_match, name) => {
    const parameter = op.parameters.find((p) => p.in === "path" && p.name === name);
    const example = firstExample(document, parameter);
    if (!example.found) {
      globbing = true;
      return `{${name}}`;
    }
    return encodeURIComponent(String(example.value));
  });
  // Only required query parameters: the sample is the shortest call that works.
  const query = new URLSearchParams();
  for (const parameter of op.parameters.filter((p) => p.in === "query" && p.required)) {
    const example = firstExample(document, parameter);
    query.append(parameter.name, example.found ? String(example.value) : `<${parameter.name}>`);
  }
  const search = query.size > 0 ? `?${query}` : "";
  const lines = [`curl${globbing ? " --globoff" : ""}${op.method === "get" ? "" : ` -X ${op.method.toUpperCase()}`} ${shellQuote(`${server}${urlPath}${search}`)}`];

  const requirements = op.operation.security ?? document.security ?? [];
  const schemeNames = Object.keys(requirements[0] ?? {});
  for (const schemeName of schemeNames) {
    const scheme = resolveRef(document, document.components?.securitySchemes?.[schemeName]);
    if (scheme?.type === "http" && String(scheme.scheme).toLowerCase() === "bearer") {
      lines.push(`-H "Authorization: Bearer $${api.keyEnv}"`);
    } else if (scheme?.type === "http" && String(scheme.scheme).toLowerCase() === "basic") {
      lines.push(`-u "$${api.keyEnv}"`);
    } else if (scheme?.type === "apiKey" && scheme.in === "header") {
      lines.push(`-H "${scheme.name}: $${api.keyEnv}"`);
    }
  }
  for (const parameter of op.parameters.filter((p) => p.in === "header" && p.required)) {
    const example = firstExample(document, parameter);
    lines.push(`-H ${shellQuote(`${parameter.name}: ${example.found ? example.value : ""}`)}`);
  }

  const requestBody = resolveRef(document, op.operation.requestBody);
  const media = requestBody?.content?.["application/json"];
  if (media) {
    const example = firstExample(document, media);
    lines.push(`-H 'Content-Type: application/json'`);
    if (example.found) lines.push(`-d ${shellQuote(JSON.stringify(example.value, null, 2))}`);
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
 * The sample files in a directory.
 * @param {string} samplesDir
 */
export function listSampleFiles(samplesDir) {
  return readdirSync(samplesDir).filter((f) => f.endsWith(".ts"));
}

/**
 * A copy of the document whose every operation carries `x-codeSamples` (curl and TypeScript).
 * Throws, naming them all, when operations lack a TypeScript sample.
 * @param {any} document
 * @param {Pick<DocsApi, "keyEnv">} api
 * @param {string} samplesDir
 */
export function withCodeSamples(document, api, samplesDir) {
  const copy = structuredClone(document);
  const operations = listOperations(copy);
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
