// Checks a corpus of real-shaped payloads against the bundles: every payload the sources call valid
// must validate, and every payload they rule out must not. Reads only spec/dist and the corpus.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";

interface CorpusEntry {
  name: string;
  /**
   * "<operationId> request", "<operationId> <status>", "<operationId> header|query|path <name>",
   * "<webhook operationId> webhook" (the payload), "<webhook operationId> webhook header <name>" or "schema <Name>".
   */
  target: string;
  valid: boolean;
  /** Where the rule comes from: a seed section, the facts, or the contract's own documented choice. */
  source: string;
  payload: unknown;
}

const specDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const httpMethods = ["get", "put", "post", "delete", "patch"];

function escapePointer(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

function at(document: any, pointer: string): any {
  return pointer
    .slice(1)
    .split("/")
    .filter(Boolean)
    .reduce((node, token) => node?.[token.replace(/~1/g, "/").replace(/~0/g, "~")], document);
}

/** Follows `$ref`s of non-schema objects (responses, request bodies, parameters) to their pointer. */
function deref(document: any, pointer: string): string {
  let current = pointer;
  for (let hops = 0; hops < 10; hops++) {
    const ref = at(document, current)?.$ref;
    if (typeof ref !== "string") return current;
    current = ref.slice(1);
  }
  throw new Error(`reference loop at ${pointer}`);
}

/** The JSON pointer of the schema a corpus target names. */
function schemaPointer(document: any, target: string): string {
  const [first, second, third, fourth] = target.split(" ");
  if (first === "schema") return `/components/schemas/${second}`;
  if (second === "webhook") {
    for (const [event, item] of Object.entries<any>(document.webhooks ?? {})) {
      if (item.post?.operationId !== first) continue;
      const operation = `/webhooks/${escapePointer(event)}/post`;
      if (third === undefined) return `${deref(document, `${operation}/requestBody`)}/content/application~1json/schema`;
      const parameters = (item.post.parameters ?? []).map((_: unknown, index: number) => deref(document, `${operation}/parameters/${index}`));
      const found = parameters.find((pointer: string) => at(document, pointer).in === third && at(document, pointer).name === fourth);
      if (found) return `${found}/schema`;
      throw new Error(`${target}: no such parameter`);
    }
    throw new Error(`${target}: no such webhook`);
  }
  for (const [route, item] of Object.entries<any>(document.paths)) {
    for (const method of httpMethods) {
      if (item[method]?.operationId !== first) continue;
      const operation = `/paths/${escapePointer(route)}/${method}`;
      if (second === "request") {
        return `${deref(document, `${operation}/requestBody`)}/content/application~1json/schema`;
      }
      if (/^\d{3}$/.test(second!)) {
        return `${deref(document, `${operation}/responses/${second}`)}/content/application~1json/schema`;
      }
      const parameters = [
        ...(item.parameters ?? []).map((_: unknown, index: number) => `/paths/${escapePointer(route)}/parameters/${index}`),
        ...(item[method].parameters ?? []).map((_: unknown, index: number) => `${operation}/parameters/${index}`),
      ];
      for (const parameter of parameters.map((pointer: string) => deref(document, pointer))) {
        const resolved = at(document, parameter);
        if (resolved.in === second && resolved.name === third) return `${parameter}/schema`;
      }
      throw new Error(`${target}: no such parameter`);
    }
  }
  throw new Error(`${target}: no such operation`);
}

for (const api of ["entitlements", "webdata"]) {
  const document = JSON.parse(readFileSync(path.join(specDir, "dist", `${api}.openapi.json`), "utf8"));
  const corpus = parse(readFileSync(path.join(specDir, "test", "corpus", `${api}.yaml`), "utf8")) as CorpusEntry[];
  // OpenAPI keywords (discriminator, example, x-...) are not JSON Schema: ajv is told to ignore them.
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats.default(ajv);
  ajv.addSchema(document, "bundle");

  describe(`${api} corpus`, () => {
    it("has a name, a source and a known target for every entry, and names are unique", () => {
      expect(new Set(corpus.map((entry) => entry.name)).size).toBe(corpus.length);
      for (const entry of corpus) {
        expect(entry.source, entry.name).toMatch(/\S/);
        expect(typeof entry.valid, entry.name).toBe("boolean");
        expect(() => schemaPointer(document, entry.target), entry.name).not.toThrow();
      }
    });

    for (const entry of corpus) {
      it(`${entry.valid ? "accepts" : "rejects"} ${entry.name} (${entry.target}; ${entry.source})`, () => {
        const validate = ajv.getSchema(`bundle#${schemaPointer(document, entry.target)}`)!;
        const accepted = validate(entry.payload);
        expect(accepted, JSON.stringify(validate.errors)).toBe(entry.valid);
      });
    }
  });
}

it("the corpus holds at least 60 payloads across both APIs, both directions and both verdicts", () => {
  const all = ["entitlements", "webdata"].flatMap(
    (api) => parse(readFileSync(path.join(specDir, "test", "corpus", `${api}.yaml`), "utf8")) as CorpusEntry[],
  );
  expect(all.length).toBeGreaterThanOrEqual(60);
  const requests = all.filter((entry) => / (request|header|query|path) ?/.test(entry.target));
  expect(requests.length).toBeGreaterThan(10);
  expect(all.length - requests.length).toBeGreaterThan(10);
  expect(all.some((entry) => entry.valid) && all.some((entry) => !entry.valid)).toBe(true);
});
