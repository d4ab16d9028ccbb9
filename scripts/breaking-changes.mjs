#!/usr/bin/env node
// Lists the changes between two versions of a bundled description that can break a client built
// against the older one: operations, webhooks or statuses that disappear, requests that accept less
// than before (`x-rules` included), responses and webhook calls that promise less (or send more
// kinds of value) than before. Operations and webhooks that were added are listed too, as not breaking.
//
//   node scripts/breaking-changes.mjs [--base <git ref>]   bundles at <ref> (default HEAD) vs. spec/dist
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { bundleFiles, follow, isObject, listApis, walkOperations, walkWebhooks } from "@api-contracts/contract-core";

const resolve = (document, node) => (isObject(node) ? follow(document, node, "").node : node);

/**
 * A schema with its `$ref`s followed and its `allOf` members folded in: members and required
 * names add up (a member the schema states itself wins over an `allOf` member's, as it refines
 * it), other keywords are taken from the first member that states them.
 */
function flatten(document, node, depth = 0) {
  const schema = resolve(document, node);
  if (!isObject(schema) || !Array.isArray(schema.allOf) || depth > 12) return schema;
  const { allOf, ...own } = schema;
  const merged = { ...own, properties: { ...(own.properties ?? {}) }, required: [...(own.required ?? [])] };
  for (const part of allOf.map((member) => flatten(document, member, depth + 1)).filter(isObject)) {
    for (const [key, value] of Object.entries(part)) {
      if (key === "properties") merged.properties = { ...value, ...merged.properties };
      else if (key === "required") merged.required.push(...value);
      else if (key === "x-rules") merged["x-rules"] = [...(merged["x-rules"] ?? []), ...value];
      else if (!(key in merged)) merged[key] = value;
    }
  }
  return merged;
}

/**
 * How each `x-rules` setting moves what a rule accepts: "up" accepts more as the number grows, "down"
 * as it shrinks, "superset"/"subset" as the list gains or loses items, "set" when it is there at all,
 * "unset" when it is not. A setting left out accepts most. Settings not named here must be equal.
 */
const RULE_SETTINGS = {
  "utf16-length": { maxLength: "up", minLength: "down" },
  "wait-total": { maxMs: "up", selectorWaitMs: "down" },
  "at-most-fraction": { fraction: "up", ofDefault: "up" },
  "time-window": { maxAheadMs: "up", maxBehindMs: "up" },
  url: { schemes: "superset", fileExtensions: "subset", host: "unset", singleColonBeforeFirstDot: "unset", trim: "set" },
};

const IGNORED = new Set(["description"]);
const sameValue = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** Whether `rule` accepts every value `other` (the same kind, on the same member) accepts. */
function acceptsAllOf(rule, other) {
  const settings = RULE_SETTINGS[rule.rule] ?? {};
  for (const key of new Set([...Object.keys(rule), ...Object.keys(other)])) {
    if (IGNORED.has(key)) continue;
    const [mine, theirs] = [rule[key], other[key]];
    switch (settings[key]) {
      case "up":
      case "down":
        if (mine === undefined) continue;
        if (theirs === undefined || (settings[key] === "up" ? mine < theirs : mine > theirs)) return false;
        continue;
      case "superset":
        if (mine === undefined) continue;
        if (theirs === undefined || theirs.some((item) => !mine.includes(item))) return false;
        continue;
      case "subset":
        if ((mine ?? []).some((item) => !(theirs ?? []).includes(item))) return false;
        continue;
      case "unset":
        if (mine !== undefined && mine !== false && !sameValue(mine, theirs)) return false;
        continue;
      case "set":
        if (theirs === true && mine !== true) return false;
        continue;
      default:
        if (!sameValue(mine, theirs)) return false;
    }
  }
  return true;
}

const UPPER_BOUNDS = new Set(["maximum", "exclusiveMaximum", "maxLength", "maxItems"]);

const rulesOf = (schema) => (Array.isArray(schema["x-rules"]) ? schema["x-rules"] : []);

const typesOf = (schema) => (schema.type === undefined ? undefined : [schema.type].flat());

/**
 * Compares two schemas. `direction` is "request" when clients write the value (the new schema
 * must accept everything the old one did) and "response" when clients read it (the new schema
 * must not produce anything the old one could not).
 */
function compareSchemas(context, before, after, direction, where, depth = 0) {
  const { oldDoc, newDoc, report } = context;
  before = flatten(oldDoc, before) ?? {};
  after = flatten(newDoc, after) ?? {};
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

  for (const keyword of [...UPPER_BOUNDS, "minimum", "exclusiveMinimum", "minLength", "minItems"]) {
    const limit = narrower[keyword];
    if (typeof limit !== "number") continue;
    const previous = wider[keyword];
    // A lower upper bound, or a higher lower bound, is tighter.
    if (previous === undefined || (UPPER_BOUNDS.has(keyword) ? limit < previous : limit > previous)) {
      // Printed as the change was made, old value first, whichever side is the narrower one.
      report(where, `${direction} ${whoBreaks === "no longer accepts" ? "is more restricted" : "is less restricted"}: ${keyword} ${before[keyword] ?? "(none)"} -> ${after[keyword] ?? "(none)"}`);
    }
  }
  if (narrower.pattern !== undefined && narrower.pattern !== wider.pattern && direction === "request") {
    report(where, `request pattern changed to ${narrower.pattern}`);
  }
  if (narrower.propertyNames !== undefined && JSON.stringify(narrower.propertyNames) !== JSON.stringify(wider.propertyNames) && direction === "request") {
    report(where, "request now restricts member names");
  }

  // Each rule of the narrower side must accept all that a rule of the same kind on the same member
  // on the wider side accepts: a new rule, or one that accepts less, narrows it.
  for (const rule of rulesOf(narrower)) {
    const counterparts = rulesOf(wider).filter((other) => other.rule === rule.rule && other.member === rule.member);
    if (counterparts.some((other) => acceptsAllOf(rule, other))) continue;
    const text = `${rule.rule} (${rule.description})`;
    const change =
      direction === "request"
        ? counterparts.length === 0 ? `request has a new rule: ${text}` : `request rule accepts less than before: ${text}`
        : counterparts.length === 0 ? `response is no longer held to the rule ${text}` : `response rule accepts more than before: ${text}`;
    report(`${where}/${rule.member}`, change);
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

/** Compares each content type of a body with the newer body's of the same type; `removed` words one the newer lacks. */
function compareMedia(context, before = [], after = [], direction, where, removed, schemaWhere = where) {
  const later = new Map(after.map((media) => [media.mediaType, media]));
  const ref = (media) => media.schema && { $ref: `#${media.schema}` };
  for (const media of before) {
    const next = later.get(media.mediaType);
    if (!next) context.report(where, removed(media.mediaType));
    else compareSchemas(context, ref(media), ref(next), direction, schemaWhere);
  }
}

/** Returns `{ where, change }` for every breaking change from `oldDoc` to `newDoc`. */
export function findBreakingChanges(oldDoc, newDoc) {
  const findings = [];
  const context = { oldDoc, newDoc, report: (where, change) => findings.push({ where, change }) };
  const current = new Map(walkOperations(newDoc).map((op) => [`${op.method} ${op.path}`, op]));
  for (const before of walkOperations(oldDoc)) {
    const where = `${before.method} ${before.path}`;
    const after = current.get(where);
    if (!after) {
      findings.push({ where, change: "operation was removed" });
      continue;
    }
    const oldParameters = new Map(before.parameters.map((p) => [`${p.in}:${p.name}`, p.object]));
    for (const parameter of after.parameters) {
      const key = `${parameter.in}:${parameter.name}`;
      const previous = oldParameters.get(key);
      if (parameter.required && previous?.required !== true) findings.push({ where: `${where} ${key}`, change: "parameter is now required" });
      if (previous) compareSchemas(context, previous.schema, parameter.object.schema, "request", `${where} ${key}`);
    }
    if (after.requestBody?.required && !before.requestBody?.required) findings.push({ where: `${where} body`, change: "request body is now required" });
    compareMedia(context, before.requestBody?.media, after.requestBody?.media, "request", `${where} body`, (type) => `request content type ${type} is no longer accepted`);
    const newResponses = new Map(after.responses.map((r) => [r.status, r]));
    for (const response of before.responses) {
      const next = newResponses.get(response.status);
      if (!next) {
        findings.push({ where: `${where} ${response.status}`, change: "documented status was removed" });
        continue;
      }
      compareMedia(context, response.media, next.media, "response", `${where} ${response.status}`, (type) => `response content type ${type} was removed`);
    }
  }
  compareWebhooks(context, oldDoc, newDoc, findings);
  return findings;
}

/**
 * Webhook calls are read by the receiver, as responses are by a client: a call that disappears, a
 * payload that promises less or sends more kinds of value, or a header no longer always sent breaks it.
 */
function compareWebhooks(context, oldDoc, newDoc, findings) {
  const current = new Map(walkWebhooks(newDoc).map((webhook) => [`${webhook.method} ${webhook.event}`, webhook]));
  for (const before of walkWebhooks(oldDoc)) {
    const where = `webhook ${before.event}`;
    const after = current.get(`${before.method} ${before.event}`);
    if (!after) {
      findings.push({ where, change: "webhook was removed" });
      continue;
    }
    const headers = new Map(after.parameters.filter((p) => p.in === "header").map((p) => [p.name.toLowerCase(), p]));
    for (const parameter of before.parameters.filter((p) => p.in === "header")) {
      const next = headers.get(parameter.name.toLowerCase());
      if (parameter.required && next?.required !== true) findings.push({ where: `${where} header:${parameter.name}`, change: "header is no longer always sent" });
      if (next) compareSchemas(context, parameter.object.schema, next.object.schema, "response", `${where} header:${parameter.name}`);
    }
    compareMedia(context, before.requestBody?.media, after.requestBody?.media, "response", where, (type) => `payload content type ${type} was removed`, `${where} payload`);
  }
}

/** Returns `{ where, change }` for every operation and webhook of `newDoc` that `oldDoc` lacks. */
export function findAdditions(oldDoc, newDoc) {
  const operations = new Set(walkOperations(oldDoc).map((op) => `${op.method} ${op.path}`));
  const webhooks = new Set(walkWebhooks(oldDoc).map((webhook) => `${webhook.method} ${webhook.event}`));
  return [
    ...walkOperations(newDoc)
      .filter((op) => !operations.has(`${op.method} ${op.path}`))
      .map((op) => ({ where: `${op.method} ${op.path}`, change: "operation was added" })),
    ...walkWebhooks(newDoc)
      .filter((webhook) => !webhooks.has(`${webhook.method} ${webhook.event}`))
      .map((webhook) => ({ where: `webhook ${webhook.event}`, change: "webhook was added" })),
  ];
}

/** Git's output, trimmed; throws when git fails. */
export const git = (args, cwd) => execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();

function main() {
  const { values } = parseArgs({ options: { base: { type: "string", default: "HEAD" } } });
  let total = 0;
  for (const api of listApis()) {
    const file = bundleFiles(api)?.json;
    if (!file) continue;
    const top = git(["rev-parse", "--show-toplevel"], path.dirname(file));
    const tracked = path.relative(top, file).split(path.sep).join("/");
    let oldText;
    try {
      oldText = git(["show", `${values.base}:${tracked}`], top);
    } catch {
      console.log(`${api.name}: no bundle at ${values.base}, nothing to compare`);
      continue;
    }
    const [oldDoc, newDoc] = [JSON.parse(oldText), JSON.parse(readFileSync(file, "utf8"))];
    const findings = findBreakingChanges(oldDoc, newDoc);
    total += findings.length;
    console.log(`${api.name}: ${findings.length} breaking change(s) since ${values.base}`);
    for (const { where, change } of findings) console.log(`  ${where}: ${change}`);
    for (const { where, change } of findAdditions(oldDoc, newDoc)) console.log(`  ${where}: ${change} (not breaking)`);
  }
  process.exit(total ? 1 : 0);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
