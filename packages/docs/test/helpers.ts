import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { docsApis } from "../src/apis.mjs";

export const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const distDir = path.join(packageDir, "dist");
export const samplesDir = path.join(packageDir, "samples");

/** Both APIs with their bundled descriptions, as the build reads them. */
export function loadApis() {
  return docsApis.map((api) => ({ api, document: JSON.parse(readFileSync(api.bundleJson, "utf8")) }));
}
