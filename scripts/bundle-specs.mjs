#!/usr/bin/env node
// Bundles each API's split YAML into spec/dist/<api>.openapi.{yaml,json}.
//   node scripts/bundle-specs.mjs          write the bundles
//   node scripts/bundle-specs.mjs --check  exit 1 when a committed bundle is stale
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { parse } from "yaml";
import { apis, repoRoot } from "./apis.mjs";
import { checkDrift } from "./drift.mjs";

const require = createRequire(path.join(repoRoot, "spec", "package.json"));
const redoclyBin = path.join(path.dirname(require.resolve("@redocly/cli/package.json")), "bin", "cli.js");

/** Bundles one API with Redocly and returns the YAML and JSON texts. */
export function bundleApi(api) {
  const dir = mkdtempSync(path.join(tmpdir(), "bundle-"));
  try {
    const out = path.join(dir, "bundle.yaml");
    execFileSync(process.execPath, [redoclyBin, "bundle", api.redoclyName, "--config", "redocly.yaml", "-o", out], {
      cwd: repoRoot,
      stdio: ["ignore", "ignore", "pipe"],
    });
    const yamlText = readFileSync(out, "utf8");
    const jsonText = `${JSON.stringify(parse(yamlText), null, 2)}\n`;
    return { yamlText, jsonText };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function main() {
  const { values } = parseArgs({ options: { check: { type: "boolean", default: false } } });
  let stale = 0;
  for (const api of apis) {
    const { yamlText, jsonText } = bundleApi(api);
    const outputs = [
      [api.bundleYaml, yamlText],
      [api.bundleJson, jsonText],
    ];
    for (const [file, text] of outputs) {
      if (values.check) {
        const result = checkDrift({ file, fresh: text, sources: [api.sourceDir, "redocly.yaml"] });
        if (result.stale) {
          stale++;
          console.error(`stale: ${result.reason} (run \`npm run build\` and commit spec/dist)`);
        }
      } else {
        mkdirSync(path.dirname(path.join(repoRoot, file)), { recursive: true });
        writeFileSync(path.join(repoRoot, file), text);
        console.log(`bundled ${file}`);
      }
    }
  }
  if (stale) process.exit(1);
  if (values.check) console.log("spec/dist is up to date");
}

if (import.meta.url === `file://${process.argv[1]}`) main();
