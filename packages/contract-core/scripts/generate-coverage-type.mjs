// Writes src/generated/coverage.ts, the TypeScript type of the coverage report, from
// schema/coverage.schema.json. Run by `npm run build`; a test fails when the file is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

const schemaFile = new URL("../schema/coverage.schema.json", import.meta.url);
export const typeFile = new URL("../src/generated/coverage.ts", import.meta.url);

const BANNER = `// Generated from schema/coverage.schema.json by scripts/generate-coverage-type.mjs.
// Do not edit: change the schema and run \`npm run generate -w @api-contracts/contract-core\`
// (the build does it too).`;

/** The text of the generated module, from the schema as it is on disk. */
export async function renderCoverageType() {
  const schema = JSON.parse(readFileSync(schemaFile, "utf8"));
  return compile(schema, "Coverage", { bannerComment: BANNER, additionalProperties: false, unreachableDefinitions: true, format: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(typeFile, await renderCoverageType());
}
