// Writes src/generated/<name>.ts, the TypeScript type of each format this package defines, from
// schema/<name>.schema.json (faults files, coverage reports, fixtures). Run by `npm run build`; a test fails
// when a generated file is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

/** The formats, by file stem, and the name of their root type. */
export const FORMATS = { faults: "Faults", coverage: "Coverage", fixtures: "Fixtures" };

export const typeFile = (name) => new URL(`../src/generated/${name}.ts`, import.meta.url);

/** The text of the generated module of one format, from its schema as it is on disk. */
export async function renderType(name) {
  const schema = JSON.parse(readFileSync(new URL(`../schema/${name}.schema.json`, import.meta.url), "utf8"));
  const bannerComment = `// Generated from schema/${name}.schema.json by scripts/generate-types.mjs.
// Do not edit: change the schema and run \`npm run generate -w @api-contracts/contract-core\`
// (the build does it too).`;
  return compile(schema, FORMATS[name], { bannerComment, additionalProperties: false, unreachableDefinitions: true, format: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const name of Object.keys(FORMATS)) writeFileSync(typeFile(name), await renderType(name));
}
