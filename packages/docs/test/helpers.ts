import path from "node:path";
import { fileURLToPath } from "node:url";
import { listApis, loadBundle } from "@api-contracts/contract-core";

export const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const distDir = path.join(packageDir, "dist");
export const samplesDir = path.join(packageDir, "samples");

/** Every registered API with its bundled description, as the build reads them. */
export function loadApis() {
  return listApis().map((api) => ({ api, document: loadBundle(api) as any }));
}
