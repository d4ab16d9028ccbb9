// Writes src/generated/<name>.ts, the TypeScript type of each format this package reads, from its
// JSON Schema: schema/<name>.schema.json (faults files, coverage reports, fixtures), and the facts of
// an API (`@api-contracts/spec/api.schema.json`). Run by `npm run build`; a test fails when a
// generated file is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

/** The formats, by file stem, and the name of their root type. */
export const FORMATS = { faults: "Faults", coverage: "Coverage", fixtures: "Fixtures", "api-facts": "ApiFacts" };

/** Where each format's schema is: this package's own, or the spec's. */
function schemaFile(name) {
  if (name === "api-facts") return createRequire(import.meta.url).resolve("@api-contracts/spec/api.schema.json");
  return new URL(`../schema/${name}.schema.json`, import.meta.url);
}

export const typeFile = (name) => new URL(`../src/generated/${name}.ts`, import.meta.url);

/** The text of the generated module of one format, from its schema as it is on disk. */
export async function renderType(name) {
  const schema = JSON.parse(readFileSync(schemaFile(name), "utf8"));
  const source = name === "api-facts" ? "@api-contracts/spec/api.schema.json" : `schema/${name}.schema.json`;
  const bannerComment = `// Generated from ${source} by scripts/generate-types.mjs.
// Do not edit: change the schema and run \`npm run generate -w @api-contracts/contract-core\`
// (the build does it too).`;
  // The facts' lists are read as lists: their least lengths are the schema's to check, not the type's.
  return compile(schema, FORMATS[name], { bannerComment, additionalProperties: false, unreachableDefinitions: true, format: true, ignoreMinAndMaxItems: name === "api-facts" });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const name of Object.keys(FORMATS)) writeFileSync(typeFile(name), await renderType(name));
}
