export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value kept under `key`, made and kept on first use; `null` is kept too, as a known absence. */
export function cached<K, V>(store: { get(key: K): V | undefined; set(key: K, value: V): unknown }, key: K, make: () => V): V {
  let value = store.get(key);
  if (value === undefined) store.set(key, (value = make()));
  return value;
}

export function escapePointer(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

export function unescapePointer(token: string): string {
  return token.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** The value at a JSON pointer (`/a/b`, or as a fragment `#/a/b`); undefined when there is none. */
export function resolvePointer(document: unknown, pointer: string): unknown {
  let node = document;
  for (const token of pointer.replace(/^#/, "").split("/").slice(1)) {
    if (node === null || typeof node !== "object") return undefined;
    const key = unescapePointer(token);
    // Own members only: `constructor` or `toString` in a pointer must not reach the prototype.
    node = Object.hasOwn(node, key) ? (node as JsonObject)[key] : undefined;
  }
  return node;
}

/**
 * Follows local `$ref`s of OpenAPI objects (path items, parameters, request bodies, responses,
 * examples): they are not JSON Schemas, so ajv never follows them. Returns the object finally
 * reached and its pointer, so that schemas below it can be referenced by pointer.
 */
export function follow(document: unknown, node: unknown, pointer: string): { node: unknown; pointer: string } {
  let current = node;
  let at = pointer;
  for (let hops = 0; isObject(current) && typeof current.$ref === "string"; hops++) {
    if (hops === 32) throw new Error(`too many $ref hops from ${pointer}`);
    const ref = current.$ref;
    if (!ref.startsWith("#")) throw new Error(`only local $refs are supported in a bundle (found ${ref})`);
    at = decodeURIComponent(ref.slice(1));
    current = resolvePointer(document, at);
  }
  return { node: current, pointer: at };
}
