// The two APIs of the project, as named in redocly.yaml, and where their artifacts live.
import { fileURLToPath } from "node:url";
import path from "node:path";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export const apis = [
  { name: "entitlements", redoclyName: "entitlements@v1", sourceDir: "spec/entitlements" },
  { name: "webdata", redoclyName: "webdata@v2", sourceDir: "spec/webdata" },
].map((api) => ({
  ...api,
  bundleYaml: `spec/dist/${api.name}.openapi.yaml`,
  bundleJson: `spec/dist/${api.name}.openapi.json`,
}));
