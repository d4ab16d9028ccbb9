import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

export type Json = Record<string, unknown>;

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export const httpMethods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** The `$id` under which a bundle is registered, so that compiled schemas can `$ref` into it. */
export const BUNDLE_ID = "openapi";

export function escapePointer(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

export function unescapePointer(segment: string): string {
  return segment.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** Follows a local `$ref` (the bundle has no other kind) to the object it names, with its pointer. */
export function deref(document: Json, node: unknown, pointer: string): { node: unknown; pointer: string } {
  let current = node;
  let at = pointer;
  for (let hops = 0; hops < 32 && current && typeof current === "object" && "$ref" in current; hops++) {
    const ref = (current as { $ref: unknown }).$ref;
    if (typeof ref !== "string" || !ref.startsWith("#/")) break;
    at = ref.slice(1);
    current = ref
      .slice(2)
      .split("/")
      .map(unescapePointer)
      .reduce<unknown>((value, key) => (value && typeof value === "object" ? (value as Json)[key] : undefined), document);
  }
  return { node: current, pointer: at };
}

/**
 * An ajv for the bundle's schemas (OpenAPI 3.1 speaks JSON Schema 2020-12), with the whole bundle
 * registered under {@link BUNDLE_ID}. `coerce` converts strings as parameters arrive in a URL or
 * header (`"true"` for a boolean); bodies are JSON and are never coerced.
 */
export function bundleAjv(document: Json, coerce: boolean): Ajv2020 {
  // OpenAPI adds keywords JSON Schema does not know (example, discriminator, ...): not strict.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, coerceTypes: coerce, logger: false });
  addFormats(ajv);
  ajv.addSchema(document, BUNDLE_ID);
  return ajv;
}
