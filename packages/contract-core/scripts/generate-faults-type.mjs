// Writes src/generated/faults.ts, the TypeScript type of the faults format, from
// schema/faults.schema.json. Run by `npm run build`; a test fails when the file is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

const schemaFile = new URL("../schema/faults.schema.json", import.meta.url);
export const typeFile = new URL("../src/generated/faults.ts", import.meta.url);

const BANNER = `// Generated from schema/faults.schema.json by scripts/generate-faults-type.mjs.
// Do not edit: change the schema and run \`npm run generate -w @api-contracts/contract-core\`
// (the build does it too).`;

/** The text of the generated module, from the schema as it is on disk. */
export async function renderFaultsType() {
  const schema = JSON.parse(readFileSync(schemaFile, "utf8"));
  return compile(schema, "Faults", { bannerComment: BANNER, additionalProperties: false, unreachableDefinitions: true, format: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(typeFile, await renderFaultsType());
}
