import { isJsonMediaType, acceptsUrl, pathRegexProblem, type WalkedOperation, type XRule } from "@api-contracts/contract-core";
import { viewOf, withBranch, jsonType, type SchemaView } from "./schema-view.js";
import { wireString, type GeneratedRequest, type GeneratorContext } from "./arbitraries.js";
import { DROP, replaceAt, type Path } from "./reduce.js";

/** One constraint broken on purpose: where, which kind, and the request that breaks it. */
export interface Mutation {
  /** `body /lock/overage_behavior`, `query status`, `header x-api-version`, `path id`. */
  where: string;
  /** type, enum, const, range, length, items, pattern, format, required, unknown-member, x-rules */
  kind: string;
  request: GeneratedRequest;
}

/** A value of another JSON type than the ones allowed, keyed by the allowed type it replaces. */
const OTHER_TYPE: Record<string, unknown> = { string: 12345, number: "12345", integer: 1.5, boolean: "true", object: "an-object", array: { an: "array" }, null: "null" };
const UNKNOWN_MEMBER = "contractTestUnknownMember";

/** The values that break one keyword of a view, each with its kind. */
function brokenValues(view: SchemaView, value: unknown, wire: boolean): Array<{ kind: string; value: unknown }> {
  const found: Array<{ kind: string; value: unknown }> = [];
  const type = jsonType(value);
  if (view.types && !wire) {
    const replaced = OTHER_TYPE[view.types.includes("integer") && type === "integer" ? "integer" : type];
    if (replaced !== undefined) found.push({ kind: "type", value: replaced });
  }
  if (view.types && wire && (view.types.includes("boolean") || view.types.includes("number") || view.types.includes("integer")) && !view.types.includes("string")) {
    found.push({ kind: "type", value: "not-a-value-of-this-type" });
  }
  if (view.enum) found.push({ kind: "enum", value: typeof view.enum[0] === "number" ? 987654321.5 : `not-${wireString(view.enum[0])}` });
  if (view.const) found.push({ kind: "const", value: typeof view.const.value === "boolean" ? !view.const.value : `not-${wireString(view.const.value)}` });
  if (typeof value === "number") {
    if (view.minimum !== undefined) found.push({ kind: "range", value: view.minimum - 1 });
    if (view.exclusiveMinimum !== undefined) found.push({ kind: "range", value: view.exclusiveMinimum });
    if (view.maximum !== undefined) found.push({ kind: "range", value: view.maximum + 1 });
    if (view.exclusiveMaximum !== undefined) found.push({ kind: "range", value: view.exclusiveMaximum });
  }
  if (typeof value === "string") {
    if (view.minLength !== undefined && view.minLength > 0) found.push({ kind: "length", value: value.slice(0, view.minLength - 1) });
    if (view.maxLength !== undefined) found.push({ kind: "length", value: "x".repeat(view.maxLength + 1) });
    if (view.patterns.length > 0) found.push({ kind: "pattern", value: `${value} !~` });
    if (view.format) found.push({ kind: "format", value: `not a ${view.format} \\(` });
  }
  if (Array.isArray(value)) {
    if (view.minItems !== undefined && view.minItems > 0) found.push({ kind: "items", value: value.slice(0, view.minItems - 1) });
    if (view.maxItems !== undefined && value.length > 0) found.push({ kind: "items", value: Array.from({ length: view.maxItems + 1 }, () => value[0]) });
  }
  return found;
}

/**
 * Strings that URL rules refuse, each for another reason: an IPv4 part above 255, a code point IDNA
 * disallows, a port out of range, a space in the host, a host without a top-level domain, a
 * top-level domain the rule does not take, another scheme, a second colon, a file name as host.
 */
const REFUSED_URLS = ["0.0.260.0", "http://0.0.260.0/", "a\uD7A4a.0.\u0500A", "https://example.com:99999/", "http://exa mple.com/", "localhost:8080", "例子.中国", "ftp://example.com/", "http://http://example.com", "image_0001.jpg", "no scheme/path"];

/**
 * Patterns a JavaScript `RegExp` may take that Firecrawl's crawler refuses, or the other way round:
 * look-around, a back-reference, a Unicode class, a non-ASCII character in a class, a `{` that is no
 * counted repetition, an escape Rust does not know, inline flags.
 */
const REFUSED_PATTERNS = ["(?=a)", "(a)\\1", "\\p{L}", "[é]", "/api/{id}", "\\e", "(?i)blog"];

function xRuleBreaks(rule: XRule, object: Record<string, unknown>, now: number): unknown[] {
  switch (rule.rule) {
    case "time-window": {
      const at = [rule.maxAheadMs === undefined ? undefined : now + rule.maxAheadMs + 86_400_000, rule.maxBehindMs === undefined ? undefined : now - rule.maxBehindMs - 86_400_000];
      return at.filter((t): t is number => t !== undefined).map((t) => (rule.encoding === "date-time" ? new Date(t).toISOString() : t));
    }
    case "wait-total":
      // Over the total by milliseconds alone, and by a wait on a selector, which counts selectorWaitMs.
      return [[{ type: "wait", milliseconds: rule.maxMs + 1 }], [{ type: "wait", milliseconds: rule.maxMs - rule.selectorWaitMs + 1 }, { type: "wait", selector: "#main" }]];
    case "no-schemaless-object":
      return [{ type: "object", properties: { data: { type: "object", additionalProperties: true } } }];
    case "url": {
      const current = object[rule.member];
      const refused = REFUSED_URLS.filter((url) => !acceptsUrl(rule, url));
      return Array.isArray(current) ? refused.map((url) => [...current, url]) : refused;
    }
    case "path-regex": {
      const current = Array.isArray(object[rule.member]) ? (object[rule.member] as unknown[]) : [];
      return REFUSED_PATTERNS.filter((pattern) => pathRegexProblem(pattern) !== undefined).map((pattern) => [...current, pattern]);
    }
    case "utf16-length":
      // Characters outside the BMP: within maxLength in code points, over it in UTF-16 code units.
      return rule.maxLength === undefined || rule.maxLength < 2 ? [] : ["\u{1F600}".repeat(Math.floor(rule.maxLength / 2) + 1)];
    case "at-most-fraction": {
      const whole = typeof object[rule.of] === "number" ? (object[rule.of] as number) : rule.ofDefault;
      return whole === undefined ? [] : [Math.floor(rule.fraction * whole) + 1];
    }
  }
}

/** A plain value of a member's declared type: what a closed object refuses is the member, not its value. */
function sampleOfType(view: SchemaView): unknown {
  const type = view.types?.[0];
  return type === "string" ? "x" : type === "number" || type === "integer" ? 1 : type === "object" ? {} : type === "array" ? [] : true;
}

/**
 * Members another branch of the same `oneOf` declares and this closed branch refuses: a member of
 * another form, such as `checkPromptInjection` (a `json` format's) on a `deterministicJson` format.
 */
function siblingMembers(ctx: GeneratorContext, parent: SchemaView, branch: string, effective: SchemaView): Array<{ key: string; value: unknown }> {
  const found = new Map<string, unknown>();
  for (const sibling of parent.branches ?? []) {
    if (sibling === branch) continue;
    for (const [key, pointers] of withBranch(ctx.document, parent, sibling).properties) {
      if (!effective.properties.has(key) && !found.has(key)) found.set(key, sampleOfType(viewOf(ctx.document, pointers)));
    }
  }
  return [...found].map(([key, value]) => ({ key, value }));
}

/** Walks a valid body with its schema and lists every single-constraint break, depth first. */
function bodyMutations(ctx: GeneratorContext, view: SchemaView, value: unknown, path: Path, now: number, out: Array<{ path: Path; kind: string; value?: unknown; remove?: boolean }>): void {
  if (out.length > 200) return;
  // The branch the value takes, through nested `oneOf`s (a format object, then the json format's forms).
  let effective = view;
  let parent: SchemaView | undefined;
  let branch: string | undefined;
  for (let depth = 0; effective.branches && depth < 4; depth++) {
    const taken = effective.branches.find((pointer) => ctx.validators.schema(pointer)(value));
    if (!taken) break;
    parent = effective;
    branch = taken;
    effective = withBranch(ctx.document, effective, taken);
  }
  for (const broken of brokenValues(effective, value, false)) out.push({ path, kind: broken.kind, value: broken.value });
  if (Array.isArray(value)) {
    if (effective.items.length > 0) value.forEach((item, i) => bodyMutations(ctx, viewOf(ctx.document, effective.items), item, [...path, i], now, out));
    return;
  }
  if (typeof value !== "object" || value === null) return;
  const object = value as Record<string, unknown>;
  for (const key of effective.required) if (Object.hasOwn(object, key)) out.push({ path: [...path, key], kind: "required", remove: true });
  if (effective.closed) {
    out.push({ path: [...path, UNKNOWN_MEMBER], kind: "unknown-member", value: true });
    if (parent && branch) for (const { key, value: member } of siblingMembers(ctx, parent, branch, effective)) if (!Object.hasOwn(object, key)) out.push({ path: [...path, key], kind: "unknown-member", value: member });
  }
  for (const rule of effective.xRules) for (const broken of xRuleBreaks(rule, object, now)) out.push({ path: [...path, rule.member], kind: "x-rules", value: broken });
  for (const [key, pointers] of effective.properties) {
    if (Object.hasOwn(object, key)) bodyMutations(ctx, viewOf(ctx.document, pointers), object[key], [...path, key], now, out);
  }
}

/**
 * Every request that breaks exactly one constraint of a valid one: a member of the wrong type, a
 * value outside its enum, range, length or pattern, a malformed format, a required member or
 * parameter left out, an unknown member where they are refused, an `x-rules` rule broken. Only
 * those the bundle's validator refuses are kept (a break may happen to land on another valid value).
 */
export function mutationsOf(ctx: GeneratorContext, operation: WalkedOperation, request: GeneratedRequest, invalid: (request: GeneratedRequest) => boolean = () => true): Mutation[] {
  const now = ctx.now();
  const found: Mutation[] = [];
  const media = operation.requestBody?.media.find((m) => isJsonMediaType(m.mediaType) && m.schema !== undefined);
  if (media && request.body !== undefined) {
    const sites: Array<{ path: Path; kind: string; value?: unknown; remove?: boolean }> = [];
    bodyMutations(ctx, viewOf(ctx.document, [media.schema!]), request.body, [], now, sites);
    for (const site of sites) {
      const body = replaceAt(request.body, site.path, site.remove ? DROP : site.value);
      found.push({ where: `body /${site.path.join("/")}`, kind: site.kind, request: { ...request, body } });
    }
  }
  const locations = { path: "path", query: "query", header: "headers" } as const;
  for (const parameter of operation.parameters) {
    if (parameter.in === "cookie") continue;
    const key = locations[parameter.in];
    const current = request[key][parameter.name];
    const view = viewOf(ctx.document, [parameter.schema]);
    if (current !== undefined) {
      for (const broken of brokenValues(view, current, true)) {
        found.push({ where: `${parameter.in} ${parameter.name}`, kind: broken.kind, request: { ...request, [key]: { ...request[key], [parameter.name]: wireString(broken.value) } } });
      }
    }
    if (parameter.required && parameter.in !== "path" && current !== undefined) {
      const { [parameter.name]: _dropped, ...rest } = request[key];
      found.push({ where: `${parameter.in} ${parameter.name}`, kind: "required", request: { ...request, [key]: rest } });
    }
  }
  return found.filter((mutation) => invalid(mutation.request));
}
