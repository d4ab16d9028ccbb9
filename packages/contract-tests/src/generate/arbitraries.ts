import fc from "fast-check";
import { isJsonMediaType, describeProblem, fillPath, pathRegexProblem, queryString, type IncomingRequest, type UrlRule, type WalkedOperation, type XRule } from "@api-contracts/contract-core";
import type { Contract } from "../judge.js";
import { viewOf, withBranch, type SchemaView } from "./schema-view.js";

/** A request as the generator makes it: every parameter as the string that goes on the wire. */
export interface GeneratedRequest {
  path: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: unknown;
}

/**
 * What generation knows of an API: its contract (the process's, so that runs side by side compile
 * each schema once), whose decision tells a valid request from one that breaks a rule; the clock
 * `x-rules` are judged by (the validators' own); and real values for a member or parameter of a
 * name (ids from the fixtures), undefined for none.
 */
export function generatorContext(contract: Contract, hints: Record<string, readonly string[]> = {}) {
  return { contract: contract.core, document: contract.doc, validators: contract.validators, now: Date.now, hints: (name: string) => hints[name] };
}

export type GeneratorContext = ReturnType<typeof generatorContext>;

/** Longest string made for a schema without `maxLength`: long enough to pass any limit a server may wrongly set. */
const STRING_CAP = 1_000;
/** A clock `x-rules` window is kept this far from its edges: the server reads its clock later. */
const WINDOW_MARGIN_MS = 60_000;
/** Without a lower bound, a point in time goes back this far at most. */
const DEFAULT_BEHIND_MS = 5 * 365 * 86_400_000;

function isValid(ctx: GeneratorContext, pointers: string[], value: unknown): boolean {
  return pointers.every((pointer) => ctx.validators.schema(pointer)(value));
}

function integerArbitrary(view: SchemaView): fc.Arbitrary<number> {
  const min = Math.max(view.minimum ?? -(2 ** 31), view.exclusiveMinimum === undefined ? -Infinity : Math.floor(view.exclusiveMinimum) + 1);
  const max = Math.min(view.maximum ?? 2 ** 31, view.exclusiveMaximum === undefined ? Infinity : Math.ceil(view.exclusiveMaximum) - 1);
  return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
}

function numberArbitrary(view: SchemaView): fc.Arbitrary<number> {
  if (view.types?.includes("integer") && !view.types.includes("number")) return integerArbitrary(view);
  const lower = view.exclusiveMinimum ?? view.minimum;
  const upper = view.exclusiveMaximum ?? view.maximum;
  const double = fc.double({
    min: lower ?? -Number.MAX_VALUE,
    max: upper ?? Number.MAX_VALUE,
    minExcluded: view.exclusiveMinimum !== undefined,
    maxExcluded: view.exclusiveMaximum !== undefined,
    noNaN: true,
    noDefaultInfinity: true,
  });
  // Whole numbers are what most callers send; fractions and extremes are where servers break.
  const small = fc.integer({ min: Math.ceil(lower ?? -1_000), max: Math.floor(upper ?? 1_000_000) }).filter((n) => (view.exclusiveMinimum === undefined || n > view.exclusiveMinimum) && (view.exclusiveMaximum === undefined || n < view.exclusiveMaximum));
  return Math.ceil(lower ?? -1_000) <= Math.floor(upper ?? 1_000_000) ? fc.oneof(small, double) : double;
}

/**
 * Regular expressions in the syntax both Firecrawl's crawler (Rust's `regex`, Unicode off) and a
 * JavaScript `RegExp` compile: literals (non-ASCII ones outside classes), ASCII classes, counted
 * repetitions, non-capturing and named groups, escaped punctuation.
 */
function regexArbitrary(): fc.Arbitrary<string> {
  const piece = fc.oneof(
    fc.stringMatching(/^[a-z0-9_-]{1,8}$/),
    fc.constantFrom(".*", "\\d+", "[a-z]+", "[^/]+", "(blog|docs)", "(?:v1|v2)", "(?<slug>[\\w-]+)", "[0-9]{1,3}", "^/", "$", "/", "\\.html", "\\-", "über", "[[:alpha:]]"),
  );
  return fc.array(piece, { minLength: 1, maxLength: 5 }).map((parts) => parts.join(""));
}

const dates = () => fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString());
const webUrls = () => fc.webUrl({ withQueryParameters: true, withFragments: true });

/** Strings of each format the generator makes by construction; other formats are left to the validator. */
const FORMATS: Record<string, () => fc.Arbitrary<string>> = {
  uuid: () => fc.uuid(),
  uri: webUrls,
  url: webUrls,
  iri: webUrls,
  "date-time": dates,
  date: () => dates().map((at) => at.slice(0, 10)),
  email: () => fc.emailAddress(),
  hostname: () => fc.domain(),
  ipv4: () => fc.ipV4(),
  ipv6: () => fc.ipV6(),
  regex: regexArbitrary,
};

function stringArbitrary(view: SchemaView, ctx: GeneratorContext): fc.Arbitrary<string> {
  const minLength = view.minLength ?? 0;
  const maxLength = Math.max(minLength, view.maxLength ?? Math.max(STRING_CAP, minLength));
  const byFormat = view.format && Object.hasOwn(FORMATS, view.format) ? FORMATS[view.format]!() : undefined;
  let arbitrary: fc.Arbitrary<string>;
  if (byFormat) arbitrary = byFormat;
  else if (view.patterns.length > 0) arbitrary = fc.stringMatching(new RegExp(view.patterns[0]!, "u"));
  else {
    const sized = (size: fc.SizeForArbitrary, unit: "grapheme-ascii" | "grapheme") => fc.string({ minLength, maxLength, size, unit });
    // Short ASCII most of the time; long ones and any Unicode text now and then.
    arbitrary = fc.oneof(
      { weight: 4, arbitrary: sized("small", "grapheme-ascii") },
      { weight: 1, arbitrary: sized("large", "grapheme-ascii") },
      { weight: 1, arbitrary: sized("medium", "grapheme") },
    );
  }
  if (byFormat || view.patterns.length > 0) {
    const patterns = view.patterns.map((p) => new RegExp(p, "u"));
    arbitrary = arbitrary.filter((s) => s.length >= minLength && s.length <= maxLength && patterns.every((p) => p.test(s)));
  }
  return view.format ? arbitrary.filter((s) => isValid(ctx, view.pointers, s)) : arbitrary;
}

/** A point in time inside an `x-rules` time window, read from the clock when the value is made. */
function timeWindowArbitrary(rule: Extract<XRule, { rule: "time-window" }>, ctx: GeneratorContext): fc.Arbitrary<unknown> {
  const ahead = rule.maxAheadMs === undefined ? 365 * 86_400_000 : rule.maxAheadMs - WINDOW_MARGIN_MS;
  const behind = rule.maxBehindMs === undefined ? DEFAULT_BEHIND_MS : rule.maxBehindMs - WINDOW_MARGIN_MS;
  return fc.integer({ min: -behind, max: ahead }).map((offset) => {
    const at = ctx.now() + offset;
    return rule.encoding === "date-time" ? new Date(at).toISOString() : at;
  });
}

/** Top-level domains the generator puts on host names: real ones, none a file extension, Latin, Cyrillic and punycode. */
const TOP_LEVEL_DOMAINS = ["com", "org", "net", "de", "io", "dev", "app", "co.uk", "com.br", "jp", "рф", "xn--p1ai", "бел"];
const LABEL = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/);
const INTERNATIONAL_LABEL = fc.constantFrom("bücher", "straße", "пример", "例子", "παράδειγμα", "xn--bcher-kva");
const PATH_SEGMENT = fc.oneof(fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/), fc.constantFrom("a path", "ünïcode", "%20", "index.html", "docs", "v2", "😀"));

/**
 * URLs a `url` rule accepts, made by construction: an http(s) scheme in any case (left out now and
 * then where the rule puts a default scheme in front), a host name with a real top-level domain
 * (international labels included) or an IPv4 address, a port, a path with spaces and non-ASCII
 * characters, a query and a fragment, and white space around it where the rule trims it.
 */
export function urlArbitrary(rule: UrlRule): fc.Arbitrary<string> {
  const schemes = (rule.schemes ?? ["http", "https"]).flatMap((scheme) => [scheme, scheme.toUpperCase()]);
  const scheme = rule.defaultScheme !== undefined ? fc.oneof(fc.constantFrom(...schemes).map((s) => `${s}://`), fc.constant("")) : fc.constantFrom(...schemes).map((s) => `${s}://`);
  const name = fc.tuple(fc.array(fc.oneof({ weight: 4, arbitrary: LABEL }, { weight: 1, arbitrary: INTERNATIONAL_LABEL }), { minLength: 1, maxLength: 3 }), fc.constantFrom(...TOP_LEVEL_DOMAINS)).map(([labels, tld]) => [...labels, tld].join("."));
  const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((parts) => parts.join("."));
  const host = fc.oneof({ weight: 4, arbitrary: name }, { weight: 1, arbitrary: ipv4 });
  const port = fc.option(fc.integer({ min: 1, max: 65535 }).map((n) => `:${n}`), { nil: "" });
  const path = fc.option(fc.array(PATH_SEGMENT, { maxLength: 3 }).map((segments) => `/${segments.join("/")}`), { nil: "" });
  const query = fc.option(fc.tuple(LABEL, fc.oneof(LABEL, fc.constantFrom("ü", "a b"))).map(([k, v]) => `?${k}=${v}`), { nil: "" });
  const fragment = fc.option(LABEL.map((f) => `#${f}`), { nil: "" });
  const space = rule.trim ? fc.constantFrom("", "", "", " ", "\n") : fc.constant("");
  // White space before a URL without a scheme would come before the default scheme put in front.
  return fc.tuple(space, scheme, host, port, path, query, fragment, space).map(([lead, given, ...rest]) => [given === "" ? "" : lead, given, ...rest].join(""));
}

/** A string cut to at most `max` UTF-16 code units without splitting a surrogate pair. */
function cutToUtf16(value: string, max: number): string {
  if (value.length <= max) return value;
  const end = /[\uD800-\uDBFF]/.test(value[max - 1] ?? "") ? max - 1 : max;
  return value.slice(0, end);
}

function objectArbitrary(view: SchemaView, ctx: GeneratorContext, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const keys = [...new Set([...view.properties.keys(), ...view.required])];
  const ruleFor = <K extends XRule["rule"]>(kind: K) => new Map(view.xRules.filter((r): r is Extract<XRule, { rule: K }> => r.rule === kind).map((r) => [r.member, r]));
  const windows = ruleFor("time-window");
  const urls = ruleFor("url");
  const lengths = ruleFor("utf16-length");
  const patternLists = ruleFor("path-regex");
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const key of keys) {
    const window = windows.get(key);
    const pointers = view.properties.get(key);
    const url = urls.get(key);
    const length = lengths.get(key);
    if (window) model[key] = timeWindowArbitrary(window, ctx);
    else if (patternLists.has(key) && pointers) model[key] = patternListArbitrary(viewOf(ctx.document, pointers));
    else if (url && pointers) {
      const member = viewOf(ctx.document, pointers);
      // A member of several forms (a URL string or an object): the rule makes the strings, the other forms as usual.
      const others = member.branches ? member.branches.map((branch) => withBranch(ctx.document, member, branch)).filter((branch) => !branch.types?.includes("string")) : [];
      const strings = urlMemberArbitrary(url, member, ctx, key);
      model[key] = others.length > 0 ? fc.oneof(strings, ...others.map((branch) => valueArbitrary(branch, ctx, depth + 1, key))) : strings;
    } else model[key] = pointers ? valueArbitrary(viewOf(ctx.document, pointers), ctx, depth + 1, key) : fc.jsonValue({ maxDepth: 2 });
    // zod counts a length in UTF-16 code units: a string the schema's maxLength allows may be too long.
    if (length?.maxLength !== undefined) {
      const max = length.maxLength;
      model[key] = model[key]!.map((value) => (typeof value === "string" ? cutToUtf16(value, max) : value));
    }
  }
  const record = fc.record(model, { requiredKeys: keys.filter((key) => view.required.has(key)) }) as fc.Arbitrary<Record<string, unknown>>;
  if (view.closed || view.additional === undefined) return record;
  const values = view.additional === true ? fc.jsonValue({ maxDepth: 3 }) : valueArbitrary(viewOf(ctx.document, view.additional), ctx, depth + 1);
  const extra = fc.dictionary(fc.string({ minLength: 1, maxLength: 16 }).filter((k) => !keys.includes(k) && k !== "__proto__"), values, { maxKeys: 5 });
  return fc.tuple(record, extra).map(([known, more]) => ({ ...more, ...known }));
}

/** A member under a `path-regex` rule: a list of patterns both engines compile (a named group at most once in each). */
function patternListArbitrary(view: SchemaView): fc.Arbitrary<string[]> {
  const pattern = regexArbitrary().filter((value) => pathRegexProblem(value) === undefined);
  return fc.array(pattern, { minLength: view.minItems ?? 0, maxLength: Math.max(view.minItems ?? 0, Math.min(view.maxItems ?? 4, 4)) });
}

/** A member under a `url` rule: one URL, or a list of them; real values from the fixtures now and then. */
function urlMemberArbitrary(rule: UrlRule, view: SchemaView, ctx: GeneratorContext, name: string): fc.Arbitrary<unknown> {
  const made = urlArbitrary(rule);
  const known = ctx.hints(name);
  const one = known && known.length > 0 ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 2, arbitrary: made }) : made;
  if (!view.types?.includes("array")) return one;
  return fc.array(made, { minLength: view.minItems ?? 0, maxLength: Math.max(view.minItems ?? 0, Math.min(view.maxItems ?? 8, 8)) });
}

function typedArbitrary(type: string, view: SchemaView, ctx: GeneratorContext, depth: number, name?: string): fc.Arbitrary<unknown> {
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return integerArbitrary(view);
    case "number":
      return numberArbitrary(view);
    case "string": {
      const made = stringArbitrary(view, ctx);
      const known = name === undefined ? undefined : ctx.hints(name);
      // A share of the requests names things the target has, so that success paths are reached.
      return known && known.length > 0 ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 2, arbitrary: made }) : made;
    }
    case "array": {
      const items = view.items.length > 0 ? valueArbitrary(viewOf(ctx.document, view.items), ctx, depth + 1) : fc.jsonValue({ maxDepth: 1 });
      return fc.array(items, { minLength: view.minItems ?? 0, maxLength: Math.max(view.minItems ?? 0, Math.min(view.maxItems ?? 8, 8)) });
    }
    case "object":
      return objectArbitrary(view, ctx, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/**
 * An arbitrary of the values a schema view accepts. Branches of a `oneOf`/`anyOf` are merged with
 * the rest of the view one at a time; where the view has keywords it does not model, the bundle's
 * own validator (with `x-rules` and the same clock) filters what is made, so that every value is
 * one the description accepts, and fast-check only shrinks towards values it still accepts.
 */
function valueArbitrary(view: SchemaView, ctx: GeneratorContext, depth = 0, name?: string): fc.Arbitrary<unknown> {
  if (depth > 12) throw new Error(`schema at ${view.pointers.join(", ")} nests deeper than the generator goes`);
  let arbitrary: fc.Arbitrary<unknown>;
  if (view.const) arbitrary = fc.constant(view.const.value);
  else if (view.enum) arbitrary = fc.constantFrom(...view.enum);
  else if (view.branches) arbitrary = fc.oneof(...view.branches.map((branch) => valueArbitrary(withBranch(ctx.document, view, branch), ctx, depth, name)));
  else {
    const inferred = view.types ?? (view.properties.size > 0 || view.required.size > 0 ? ["object"] : view.items.length > 0 ? ["array"] : undefined);
    arbitrary = inferred ? fc.oneof(...inferred.map((type) => typedArbitrary(type, view, ctx, depth, name))) : fc.jsonValue({ maxDepth: 2 });
  }
  return view.needsValidation && view.pointers.length > 0 ? arbitrary.filter((value) => isValid(ctx, view.pointers, value)) : arbitrary;
}

/** A parameter value as it goes on the wire. */
export function wireString(value: unknown): string {
  return typeof value === "string" ? value : Array.isArray(value) ? value.map(wireString).join(",") : JSON.stringify(value);
}

/**
 * A generated request as a server receives it from the kit's client: a JSON body, and a key of no one
 * in the form the API's keys take (its prefix), which the decision, knowing no keys, takes.
 */
export function incomingOf(operation: Pick<WalkedOperation, "method" | "path">, request: GeneratedRequest, keyPrefix: string): IncomingRequest {
  const json = request.body === undefined ? undefined : { "content-type": "application/json" };
  return {
    method: operation.method,
    target: `${fillPath(operation.path, request.path)}${queryString(request.query)}`,
    headers: { ...request.headers, authorization: `Bearer ${keyPrefix}contract-test`, ...json },
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
  };
}

/** What the API's decision says a generated request breaks (contract-core's wording); empty when the API serves it. */
export function requestProblems(ctx: GeneratorContext, operation: WalkedOperation, request: GeneratedRequest): string[] {
  const decision = ctx.contract.decide(incomingOf(operation, request, ctx.contract.api.key.prefix));
  if (decision.refusal) return decision.problems.map(describeProblem);
  return decision.operation?.pointer === operation.pointer ? [] : [`path ${fillPath(operation.path, request.path)} is ${decision.operation?.operationId ?? "no operation"}'s`];
}

/**
 * Requests made from the operation's schemas, parameters and JSON body, before the validator's
 * filter: most are valid by construction; what a schema keyword cannot steer is left to the filter.
 */
export function candidateRequestArbitrary(ctx: GeneratorContext, operation: WalkedOperation): fc.Arbitrary<GeneratedRequest> {
  const part = (where: "path" | "query" | "header") => {
    const parameters = operation.parameters.filter((p) => p.in === where);
    const model = Object.fromEntries(parameters.map((p) => [p.name, valueArbitrary(viewOf(ctx.document, [p.schema]), ctx, 0, p.name).map(wireString)]));
    return fc.record(model, { requiredKeys: parameters.filter((p) => p.required || where === "path").map((p) => p.name) }) as fc.Arbitrary<Record<string, string>>;
  };
  const media = operation.requestBody?.media.find((m) => isJsonMediaType(m.mediaType) && m.schema !== undefined);
  const body = media ? valueArbitrary(viewOf(ctx.document, [media.schema!]), ctx) : fc.constant(undefined);
  const optionalBody = media && !operation.requestBody!.required ? fc.option(body, { nil: undefined }) : body;
  return fc
    .record({ path: part("path"), query: part("query"), headers: part("header"), body: optionalBody })
    .map(({ body: value, ...rest }) => (value === undefined ? rest : { ...rest, body: value }));
}

/** Requests the API serves: the candidates its decision (the validators with `x-rules`, in the facts' order) lets through. */
export function validRequestArbitrary(ctx: GeneratorContext, operation: WalkedOperation): fc.Arbitrary<GeneratedRequest> {
  return candidateRequestArbitrary(ctx, operation).filter((request) => requestProblems(ctx, operation, request).length === 0);
}

const examples = new WeakMap<Contract, Map<string, GeneratedRequest>>();

/**
 * A small request the API serves, the same every time (made once per process): one generated with a
 * fixed seed, its optional parameters and body members left out while the API still serves it, and a
 * member or parameter named like a hint given its first value where the API serves that too.
 */
export function exampleOf(contract: Contract, operation: WalkedOperation, hints: Record<string, string[]> = {}): GeneratedRequest {
  let made = examples.get(contract);
  if (!made) examples.set(contract, (made = new Map()));
  const key = `${operation.pointer} ${JSON.stringify(hints)}`;
  let request = made.get(key);
  if (!request) made.set(key, (request = exampleRequest(generatorContext(contract, hints), operation)));
  return request;
}

function exampleRequest(ctx: GeneratorContext, operation: WalkedOperation): GeneratedRequest {
  const valid = (request: GeneratedRequest) => requestProblems(ctx, operation, request).length === 0;
  let request = fc.sample(validRequestArbitrary(ctx, operation), { numRuns: 1, seed: 1 })[0]!;
  const body = () => (typeof request.body === "object" && request.body !== null && !Array.isArray(request.body) ? (request.body as Record<string, unknown>) : undefined);
  const variants = function* (name: string, part: "path" | "query" | "headers" | "body"): Generator<GeneratedRequest> {
    const values = part === "body" ? body()! : request[part];
    const { [name]: _dropped, ...rest } = values;
    if (part !== "path") yield part === "body" ? { ...request, body: rest } : { ...request, [part]: rest };
    const hint = ctx.hints(name)?.[0];
    if (hint !== undefined) yield part === "body" ? { ...request, body: { ...values, [name]: hint } } : { ...request, [part]: { ...values, [name]: hint } };
  };
  for (const part of ["path", "query", "headers", "body"] as const) {
    for (const name of Object.keys((part === "body" ? body() : request[part]) ?? {})) {
      const better = [...variants(name, part)].find(valid);
      if (better) request = better;
    }
  }
  return request;
}
