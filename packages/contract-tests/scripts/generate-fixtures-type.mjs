// Writes src/generated/fixtures.ts, the TypeScript type of the fixtures format, from
// schema/fixtures.schema.json. Run by `npm run build`; a test fails when the file is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

const schemaFile = new URL("../schema/fixtures.schema.json", import.meta.url);
export const typeFile = new URL("../src/generated/fixtures.ts", import.meta.url);

const BANNER = `// Generated from schema/fixtures.schema.json by scripts/generate-fixtures-type.mjs.
// Do not edit: change the schema and run \`npm run generate -w @api-contracts/contract-tests\`
// (the build does it too).`;

/** The text of the generated module, from the schema as it is on disk. */
export async function renderFixturesType() {
  const schema = JSON.parse(readFileSync(schemaFile, "utf8"));
  return compile(schema, "Fixtures", { bannerComment: BANNER, additionalProperties: false, unreachableDefinitions: true, format: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(typeFile, await renderFixturesType());
}
