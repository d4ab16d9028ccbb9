#!/usr/bin/env node
// Lists the changes between two versions of a bundled description that can break a client built
// against the older one: operations or statuses that disappear, requests that accept less than
// before, responses that promise less (or send more kinds of value) than before.
//
//   node scripts/breaking-changes.mjs [--base <git ref>]   bundles at <ref> (default HEAD) vs. spec/dist
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { apis, repoRoot } from "./apis.mjs";

const methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

function resolve(document, node, seen = new Set()) {
  if (!node || typeof node !== "object" || typeof node.$ref !== "string") return node;
  if (seen.has(node.$ref)) return {};
  seen.add(node.$ref);
  const target = node.$ref
    .replace(/^#\//, "")
    .split("/")
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce((current, token) => current?.[token], document);
  return resolve(document, target, seen);
}

const typesOf = (schema) => (schema.type === undefined ? undefined : [schema.type].flat());

/**
 * Compares two schemas. `direction` is "request" when clients write the value (the new schema
 * must accept everything the old one did) and "response" when clients read it (the new schema
 * must not produce anything the old one could not).
 */
function compareSchemas(context, before, after, direction, where, depth = 0) {
  const { oldDoc, newDoc, report } = context;
  before = resolve(oldDoc, before) ?? {};
  after = resolve(newDoc, after) ?? {};
  if (depth > 12 || typeof before !== "object" || typeof after !== "object") return;
  const [narrower, wider] = direction === "request" ? [after, before] : [before, after];
  const whoBreaks = direction === "request" ? "no longer accepts" : "may now send";

  const narrowTypes = typesOf(narrower);
  const wideTypes = typesOf(wider);
  if (narrowTypes && wideTypes) {
    const extra = wideTypes.filter((type) => !narrowTypes.includes(type) && !(type === "integer" && narrowTypes.includes("number")));
    if (extra.length) report(where, `${direction} ${whoBreaks} type ${extra.join(", ")}`);
  } else if (narrowTypes && !wideTypes && direction === "request") {
    report(where, `request now restricts the type to ${narrowTypes.join(", ")}`);
  }

  if (Array.isArray(narrower.enum) && Array.isArray(wider.enum)) {
    const extra = wider.enum.filter((value) => !narrower.enum.includes(value));
    if (extra.length) report(where, `${direction} ${whoBreaks} the value(s) ${extra.map((v) => JSON.stringify(v)).join(", ")}`);
  } else if (Array.isArray(narrower.enum) && !Array.isArray(wider.enum) && direction === "request") {
    report(where, "request now restricts the value to an enum");
  }
  if (narrower.const !== undefined && wider.const === undefined && direction === "request") {
    report(where, `request now requires the value ${JSON.stringify(narrower.const)}`);
  }

  for (const [keyword, tighter] of [
    ["maximum", (a, b) => a < b],
    ["exclusiveMaximum", (a, b) => a < b],
    ["maxLength", (a, b) => a < b],
    ["maxItems", (a, b) => a < b],
    ["minimum", (a, b) => a > b],
    ["exclusiveMinimum", (a, b) => a > b],
    ["minLength", (a, b) => a > b],
    ["minItems", (a, b) => a > b],
  ]) {
    const limit = narrower[keyword];
    if (typeof limit !== "number") continue;
    const previous = wider[keyword];
    if (previous === undefined || tighter(limit, previous)) {
      report(where, `${direction} ${whoBreaks === "no longer accepts" ? "is more restricted" : "is less restricted"}: ${keyword} ${previous ?? "(none)"} -> ${limit}`);
    }
  }
  if (narrower.pattern !== undefined && narrower.pattern !== wider.pattern && direction === "request") {
    report(where, `request pattern changed to ${narrower.pattern}`);
  }

  const beforeRequired = new Set(before.required ?? []);
  const afterRequired = new Set(after.required ?? []);
  if (direction === "request") {
    for (const name of afterRequired) if (!beforeRequired.has(name)) report(`${where}/${name}`, "request member is now required");
    if (after.additionalProperties === false) {
      for (const name of Object.keys(before.properties ?? {})) {
        if (!(name in (after.properties ?? {}))) report(`${where}/${name}`, "request member was removed and unknown members are rejected");
      }
    }
  } else {
    for (const name of beforeRequired) if (!afterRequired.has(name)) report(`${where}/${name}`, "response member is no longer always sent");
  }

  for (const [name, schema] of Object.entries(before.properties ?? {})) {
    if (after.properties?.[name]) compareSchemas(context, schema, after.properties[name], direction, `${where}/${name}`, depth + 1);
  }
  if (before.items && after.items) compareSchemas(context, before.items, after.items, direction, `${where}/items`, depth + 1);
  for (const keyword of ["oneOf", "anyOf"]) {
    if (Array.isArray(before[keyword]) && Array.isArray(after[keyword]) && before[keyword].length === after[keyword].length) {
      before[keyword].forEach((schema, index) =>
        compareSchemas(context, schema, after[keyword][index], direction, `${where}/${keyword}/${index}`, depth + 1),
      );
    }
  }
}

function parametersOf(document, pathItem, operation) {
  const all = [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])].map((parameter) => resolve(document, parameter));
  return new Map(all.map((parameter) => [`${parameter.in}:${parameter.name}`, parameter]));
}

/** Returns `{ where, change }` for every breaking change from `oldDoc` to `newDoc`. */
export function findBreakingChanges(oldDoc, newDoc) {
  const findings = [];
  const context = { oldDoc, newDoc, report: (where, change) => findings.push({ where, change }) };
  for (const [route, oldItem] of Object.entries(oldDoc.paths ?? {})) {
    for (const method of methods.filter((m) => oldItem[m])) {
      const where = `${method.toUpperCase()} ${route}`;
      const newItem = newDoc.paths?.[route];
      const before = oldItem[method];
      const after = newItem?.[method];
      if (!after) {
        findings.push({ where, change: "operation was removed" });
        continue;
      }
      const oldParameters = parametersOf(oldDoc, oldItem, before);
      const newParameters = parametersOf(newDoc, newItem, after);
      for (const [key, parameter] of newParameters) {
        const previous = oldParameters.get(key);
        if (parameter.required && !previous?.required) findings.push({ where: `${where} ${key}`, change: "parameter is now required" });
        if (previous) compareSchemas(context, previous.schema, parameter.schema, "request", `${where} ${key}`);
      }
      const oldBody = resolve(oldDoc, before.requestBody);
      const newBody = resolve(newDoc, after.requestBody);
      if (newBody?.required && !oldBody?.required) findings.push({ where: `${where} body`, change: "request body is now required" });
      for (const [type, media] of Object.entries(oldBody?.content ?? {})) {
        const next = newBody?.content?.[type];
        if (!next) findings.push({ where: `${where} body`, change: `request content type ${type} is no longer accepted` });
        else compareSchemas(context, media.schema, next.schema, "request", `${where} body`);
      }
      for (const [status, oldResponse] of Object.entries(before.responses ?? {})) {
        const newResponse = resolve(newDoc, after.responses?.[status]);
        if (!newResponse) {
          findings.push({ where: `${where} ${status}`, change: "documented status was removed" });
          continue;
        }
        for (const [type, media] of Object.entries(resolve(oldDoc, oldResponse).content ?? {})) {
          const next = newResponse.content?.[type];
          if (!next) findings.push({ where: `${where} ${status}`, change: `response content type ${type} was removed` });
          else compareSchemas(context, media.schema, next.schema, "response", `${where} ${status}`);
        }
      }
    }
  }
  return findings;
}

function main() {
  const { values } = parseArgs({ options: { base: { type: "string", default: "HEAD" } } });
  let total = 0;
  for (const api of apis) {
    let oldText;
    try {
      oldText = execFileSync("git", ["show", `${values.base}:${api.bundleJson}`], { cwd: repoRoot, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    } catch {
      console.log(`${api.name}: no bundle at ${values.base}, nothing to compare`);
      continue;
    }
    const findings = findBreakingChanges(JSON.parse(oldText), JSON.parse(readFileSync(path.join(repoRoot, api.bundleJson), "utf8")));
    total += findings.length;
    console.log(`${api.name}: ${findings.length} breaking change(s) since ${values.base}`);
    for (const { where, change } of findings) console.log(`  ${where}: ${change}`);
  }
  process.exit(total ? 1 : 0);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
