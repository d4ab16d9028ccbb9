// Writes schema/fixtures.schema.json, the copy of contract-core's fixtures format that keeps
// `@api-contracts/contract-tests/fixtures.schema.json` resolving for files whose `$schema` points at
// it. Run by `npm run build`; a test fails when the copy is stale.
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

export const source = createRequire(import.meta.url).resolve("@api-contracts/contract-core/fixtures.schema.json");
export const copy = new URL("../schema/fixtures.schema.json", import.meta.url);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  mkdirSync(new URL("../schema/", import.meta.url), { recursive: true });
  copyFileSync(source, copy);
}
