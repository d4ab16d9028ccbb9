import { escapePointer, isObject, resolvePointer, type JsonObject, type XRule } from "@api-contracts/contract-core";

/**
 * What a generator needs to know about one place of a request: the keywords of a schema with its
 * `$ref`s followed and its `allOf` members merged in. The first `oneOf`/`anyOf` is kept as branches
 * to choose from; what cannot be merged (`if`, `not`, further combinators, `x-rules` between
 * members) is left to the bundle's own validator, which every generated value passes through.
 */
export interface SchemaView {
  /** JSON pointers of the schemas this view was made from; a value is valid when all of them accept it. */
  pointers: string[];
  /** Allowed JSON types (`integer` included); undefined: any. */
  types?: string[];
  enum?: unknown[];
  const?: { value: unknown };
  format?: string;
  patterns: string[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  /** Pointers of the item schemas. */
  items: string[];
  /** Pointers of each member's schemas. */
  properties: Map<string, string[]>;
  required: Set<string>;
  /** Members other than `properties` are refused (`additionalProperties` or `unevaluatedProperties` false). */
  closed: boolean;
  /** Members other than `properties` are the caller's data: any JSON (`true`) or values of these schemas. */
  additional?: true | string[];
  /** The first `oneOf`/`anyOf`: one branch is merged into the view when a value is made. */
  branches?: string[];
  xRules: XRule[];
  /** Keywords the view does not model are present: only the validator can tell a valid value. */
  needsValidation: boolean;
}

const larger = (a: number | undefined, b: unknown) => (typeof b !== "number" ? a : a === undefined ? b : Math.max(a, b));
const smaller = (a: number | undefined, b: unknown) => (typeof b !== "number" ? a : a === undefined ? b : Math.min(a, b));

function refTarget(ref: string): string {
  if (!ref.startsWith("#")) throw new Error(`only local $refs are supported in a bundle (found ${ref})`);
  return decodeURIComponent(ref.slice(1));
}

/** Merges the schema at `pointer` into `view` (in place) and returns it. */
function mergeInto(document: JsonObject, pointer: string, view: SchemaView, depth = 0): SchemaView {
  if (depth > 32) throw new Error(`schema at ${pointer}: $ref or allOf nested more than 32 deep`);
  const node = resolvePointer(document, pointer);
  if (!isObject(node)) return view;
  if (typeof node.$ref === "string") mergeInto(document, refTarget(node.$ref), view, depth + 1);

  if (node.type !== undefined) {
    const types = ([] as unknown[]).concat(node.type).map(String);
    view.types = view.types ? view.types.filter((t) => types.includes(t) || (t === "integer" && types.includes("number"))) : types;
    if (view.types.includes("number") && types.includes("integer") && !types.includes("number")) view.types = view.types.map((t) => (t === "number" ? "integer" : t));
  }
  if (Array.isArray(node.enum)) view.enum = view.enum ? view.enum.filter((v) => (node.enum as unknown[]).some((w) => JSON.stringify(v) === JSON.stringify(w))) : [...node.enum];
  if (Object.hasOwn(node, "const")) view.const = { value: node.const };
  if (typeof node.format === "string") view.format ??= node.format;
  if (typeof node.pattern === "string") view.patterns.push(node.pattern);
  // Bounds of every schema hold at once: the tightest wins.
  for (const key of ["minLength", "minimum", "exclusiveMinimum", "minItems"] as const) view[key] = larger(view[key], node[key]);
  for (const key of ["maxLength", "maximum", "exclusiveMaximum", "maxItems"] as const) view[key] = smaller(view[key], node[key]);
  if (node.items !== undefined) view.items.push(`${pointer}/items`);
  if (node.uniqueItems === true || node.contains !== undefined || node.prefixItems !== undefined) view.needsValidation = true;

  if (isObject(node.properties)) {
    for (const key of Object.keys(node.properties)) {
      view.properties.set(key, [...(view.properties.get(key) ?? []), `${pointer}/properties/${escapePointer(key)}`]);
    }
  }
  if (Array.isArray(node.required)) for (const key of node.required) view.required.add(String(key));
  if (node.additionalProperties === false || node.unevaluatedProperties === false) view.closed = true;
  if (node.additionalProperties === true || isObject(node.additionalProperties)) {
    view.additional = node.additionalProperties === true || view.additional === true ? true : [...(view.additional ?? []), `${pointer}/additionalProperties`];
  }
  if (node.minProperties !== undefined || node.maxProperties !== undefined || node.patternProperties !== undefined || node.propertyNames !== undefined) view.needsValidation = true;

  if (Array.isArray(node.allOf)) node.allOf.forEach((_, i) => mergeInto(document, `${pointer}/allOf/${i}`, view, depth + 1));
  for (const combinator of ["oneOf", "anyOf"] as const) {
    const list = node[combinator];
    if (!Array.isArray(list)) continue;
    if (view.branches) view.needsValidation = true;
    else view.branches = list.map((_, i) => `${pointer}/${combinator}/${i}`);
    view.needsValidation = true;
  }
  if (node.if !== undefined || node.not !== undefined || node.dependentRequired !== undefined || node.dependentSchemas !== undefined) view.needsValidation = true;
  if (Array.isArray(node["x-rules"])) {
    view.xRules.push(...(node["x-rules"] as XRule[]));
    view.needsValidation = true;
  }
  return view;
}

/** Views are read, never changed, once made: one per document and pointers is enough. */
const made = new WeakMap<JsonObject, Map<string, SchemaView>>();

function remembered(document: JsonObject, key: string, make: () => SchemaView): SchemaView {
  let views = made.get(document);
  if (!views) made.set(document, (views = new Map()));
  let view = views.get(key);
  if (!view) views.set(key, (view = make()));
  return view;
}

/** The view of the schemas at these pointers, all of which a value must satisfy. */
export function viewOf(document: JsonObject, pointers: string[]): SchemaView {
  return remembered(document, pointers.join("\n"), () => {
    const view: SchemaView = { pointers: [], patterns: [], items: [], properties: new Map(), required: new Set(), closed: false, xRules: [], needsValidation: false };
    for (const pointer of pointers) mergeInto(document, pointer, view);
    view.pointers = [...pointers];
    return view;
  });
}

/** The view with one of its branches merged in (and the branch list consumed). */
export function withBranch(document: JsonObject, view: SchemaView, branch: string): SchemaView {
  return remembered(document, `${view.pointers.join("\n")}\n+${branch}`, () => {
    // A copy: the view itself is remembered and read by others.
    const merged = structuredClone(view);
    delete merged.branches;
    mergeInto(document, branch, merged);
    merged.pointers = view.pointers;
    return merged;
  });
}

/** The JSON type of a value as JSON Schema names it. */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}
