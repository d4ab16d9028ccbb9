import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { extractSeedTerms } from "./seed-terms.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const seedsDir = path.resolve(process.env.SHARED_DIR ?? path.join(repoRoot, "..", "shared"), "seeds");
const seedsPresent = existsSync(seedsDir);
if (!seedsPresent) {
  console.warn(`seed coverage skipped: no seed documents at ${seedsDir} (they sit beside the repository in CI; set SHARED_DIR to point elsewhere)`);
}

/** Every key, and every string scalar, of a bundled description. */
function inventory(document: unknown) {
  const propertyNames = new Set<string>();
  const parameterNames = new Set<string>();
  const enumeratedValues = new Set<string>();
  const strings = new Set<string>();
  const walk = (node: unknown, parentKey?: string): void => {
    if (Array.isArray(node)) {
      for (const item of node) {
        if (parentKey === "enum" && typeof item === "string") enumeratedValues.add(item);
        walk(item);
      }
    } else if (node && typeof node === "object") {
      const record = node as Record<string, unknown>;
      if (parentKey === "properties") for (const key of Object.keys(record)) propertyNames.add(key);
      if (typeof record.in === "string" && typeof record.name === "string") parameterNames.add(record.name);
      if (typeof record.const === "string") enumeratedValues.add(record.const);
      for (const [key, value] of Object.entries(record)) walk(value, key);
    } else if (typeof node === "string") {
      strings.add(node);
      if (parentKey === "default") enumeratedValues.add(node);
    }
  };
  walk(document);
  return { propertyNames, parameterNames, enumeratedValues, strings };
}

const seeds = [
  { file: "000_5abfeacbc5c25fc5.txt", api: "entitlements" },
  { file: "001_423d37f54a50851c.txt", api: "webdata" },
];

describe.skipIf(!seedsPresent)("seed coverage: the bundled spec holds every term of its seed", () => {
  for (const { file, api } of seeds) {
    describe(api, () => {
      const terms = extractSeedTerms(seedsPresent ? readFileSync(path.join(seedsDir, file), "utf8") : "");
      const bundle = JSON.parse(readFileSync(path.join(repoRoot, "spec/dist", `${api}.openapi.json`), "utf8"));
      const found = inventory(bundle);
      // A bearer security scheme is how OpenAPI documents the Authorization header.
      const schemes = Object.values(bundle.components?.securitySchemes ?? {}) as { type?: string; scheme?: string }[];
      if (schemes.some((scheme) => scheme.type === "http" && scheme.scheme === "bearer")) found.parameterNames.add("Authorization");
      const operations = new Set(
        Object.entries(bundle.paths as Record<string, Record<string, unknown>>).flatMap(([route, item]) =>
          Object.keys(item).map((method) => `${method} ${route}`),
        ),
      );

      it("every field the seed names is a property", () => {
        expect(terms.fields.size).toBeGreaterThan(20);
        const missing = [...terms.fields].filter((name) => !found.propertyNames.has(name) && !found.parameterNames.has(name));
        expect(missing).toEqual([]);
      });

      it("every enumerated value the seed lists is an enum or const value", () => {
        const missing = [...terms.values].filter((value) => !found.enumeratedValues.has(value));
        expect(missing).toEqual([]);
      });

      it("every back-quoted name is a property, a parameter or an enumerated value", () => {
        const missing = [...terms.names].filter(
          (name) =>
            !found.propertyNames.has(name) &&
            !found.parameterNames.has(name) &&
            !found.enumeratedValues.has(name) &&
            ![...operations].some((operation) => operation.split(/[/.]/).includes(name)),
        );
        expect(missing).toEqual([]);
      });

      it("every error message the seed quotes is documented", () => {
        const missing = [...terms.messages].filter((message) => !found.strings.has(message));
        expect(missing).toEqual([]);
      });

      it("every operation the seed names is a path of the spec", () => {
        const missing = [...terms.operations].filter((operation) => !operations.has(operation));
        expect(missing).toEqual([]);
      });
    });
  }
});
