// Reading the bundled descriptions: the operations they declare and the local `$ref`s a bundle
// keeps (Redocly's bundle moves shared parts to components instead of inlining them).

export const httpMethods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/**
 * @typedef {object} Operation
 * @property {string} operationId
 * @property {string} method      lower-case HTTP method
 * @property {string} path        path template, e.g. /v2/crawl/{id}
 * @property {string} summary
 * @property {boolean} deprecated
 * @property {Record<string, any>} operation the operation object itself
 * @property {any[]} parameters   path-level and operation-level parameters, refs resolved
 */

/**
 * Resolves a local reference (`#/components/...`) against the document; anything else is
 * returned unchanged.
 * @param {any} document
 * @param {any} value
 * @returns {any}
 */
export function resolveRef(document, value) {
  let current = value;
  const seen = new Set();
  while (current && typeof current === "object" && typeof current.$ref === "string") {
    const ref = current.$ref;
    if (!ref.startsWith("#/")) throw new Error(`only local references can be resolved, got ${ref}`);
    if (seen.has(ref)) throw new Error(`circular reference ${ref}`);
    seen.add(ref);
    let target = document;
    for (const raw of ref.slice(2).split("/")) {
      const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
      target = target?.[key];
    }
    if (target === undefined) throw new Error(`unresolvable reference ${ref}`);
    current = target;
  }
  return current;
}

/**
 * Every operation of the document, in the order the paths declare them.
 * @param {any} document
 * @returns {Operation[]}
 */
export function listOperations(document) {
  /** @type {Operation[]} */
  const operations = [];
  for (const [path, rawItem] of Object.entries(document.paths ?? {})) {
    const item = resolveRef(document, rawItem);
    const shared = (item.parameters ?? []).map((/** @type {any} */ p) => resolveRef(document, p));
    for (const method of httpMethods) {
      const operation = item[method];
      if (!operation) continue;
      if (typeof operation.operationId !== "string") {
        throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      }
      const own = (operation.parameters ?? []).map((/** @type {any} */ p) => resolveRef(document, p));
      const overridden = new Set(own.map((/** @type {any} */ p) => `${p.in}:${p.name}`));
      operations.push({
        operationId: operation.operationId,
        method,
        path,
        summary: operation.summary ?? "",
        deprecated: operation.deprecated === true,
        operation,
        parameters: [...shared.filter((/** @type {any} */ p) => !overridden.has(`${p.in}:${p.name}`)), ...own],
      });
    }
  }
  return operations;
}
