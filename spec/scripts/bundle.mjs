#!/usr/bin/env node
// Bundles each API's split YAML into dist/<api>.openapi.{yaml,json}, and every API's facts
// (<api>/api.yaml, checked against api.schema.json) into dist/apis.json, the registry the tools
// read. The APIs are the OpenAPI entries of redocly.yaml (`<api>@<version>` with an `openapi.yaml`
// root), so a new API folder is bundled, and served by every tool, as soon as it is linted.
//   node scripts/bundle.mjs          write the bundles
//   node scripts/bundle.mjs --check  exit 1 when a committed bundle is stale
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse } from "yaml";
import { checkDrift } from "./drift.mjs";

export const specDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(specDir, "package.json"));
const redoclyBin = path.join(path.dirname(require.resolve("@redocly/cli/package.json")), "bin", "cli.js");

/** The APIs redocly.yaml lints, with where their sources and bundles are (relative to spec/). */
export function describedApis() {
  const config = parse(readFileSync(path.join(specDir, "redocly.yaml"), "utf8"));
  return Object.entries(config.apis ?? {})
    .filter(([, entry]) => typeof entry?.root === "string" && path.basename(entry.root) === "openapi.yaml")
    .map(([redoclyName, entry]) => {
      const name = redoclyName.split("@")[0];
      return {
        name,
        redoclyName,
        sourceDir: path.dirname(entry.root),
        bundleYaml: `dist/${name}.openapi.yaml`,
        bundleJson: `dist/${name}.openapi.json`,
      };
    });
}

/** Bundles one API with Redocly and returns the YAML and JSON texts. */
export function bundleApi(api) {
  const dir = mkdtempSync(path.join(tmpdir(), "bundle-"));
  try {
    const out = path.join(dir, "bundle.yaml");
    execFileSync(process.execPath, [redoclyBin, "bundle", api.redoclyName, "-o", out], {
      cwd: specDir,
      stdio: ["ignore", "ignore", "pipe"],
    });
    const yamlText = readFileSync(out, "utf8");
    const jsonText = `${JSON.stringify(parse(yamlText), null, 2)}\n`;
    return { yamlText, jsonText };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The registry file: every API's facts, in redocly.yaml's order. */
export const REGISTRY_FILE = "dist/apis.json";

let factsValidator;

/**
 * An API's facts (<api>/api.yaml) as the registry holds them, checked against api.schema.json, with
 * the API's name and the title of its description put first. That the facts agree with each other
 * and with the description (every refusal a check needs is worded) is checked where they are read:
 * contract-core's registry, which reads every API's facts the same way.
 */
export function apiFacts(api, bundleText) {
  factsValidator ??= new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(path.join(specDir, "api.schema.json"), "utf8")));
  const file = path.join(api.sourceDir, "api.yaml");
  const facts = parse(readFileSync(path.join(specDir, file), "utf8"));
  if (!factsValidator(facts)) {
    const problems = factsValidator.errors.map((e) => `${e.instancePath || "/"} ${e.message}`);
    throw new Error(`${file}: ${[...new Set(problems)].join("; ")}`);
  }
  return { name: api.name, title: parse(bundleText).info.title, ...facts };
}

function main() {
  const { values } = parseArgs({ options: { check: { type: "boolean", default: false } } });
  let stale = 0;
  const apis = describedApis();
  const registry = [];
  const files = [];
  for (const api of apis) {
    const { yamlText, jsonText } = bundleApi(api);
    registry.push(apiFacts(api, yamlText));
    files.push({ file: api.bundleYaml, text: yamlText, sources: [api.sourceDir, "redocly.yaml"] }, { file: api.bundleJson, text: jsonText, sources: [api.sourceDir, "redocly.yaml"] });
  }
  files.push({ file: REGISTRY_FILE, text: `${JSON.stringify(registry, null, 2)}\n`, sources: [...apis.map((api) => api.sourceDir), "redocly.yaml", "api.schema.json"] });
  for (const { file, text, sources } of files) {
    if (values.check) {
      const result = checkDrift({ file, fresh: text, sources });
      if (result.stale) {
        stale++;
        console.error(`stale: ${result.reason} (run \`npm run build\` and commit spec/dist)`);
      }
    } else {
      mkdirSync(path.dirname(path.join(specDir, file)), { recursive: true });
      writeFileSync(path.join(specDir, file), text);
      console.log(`bundled spec/${file}`);
    }
  }
  if (stale) process.exit(1);
  if (values.check) console.log("spec/dist is up to date");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) main();
