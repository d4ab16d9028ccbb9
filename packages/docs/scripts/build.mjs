#!/usr/bin/env node
// Builds dist/: the landing page, one self-contained Redoc page per API (with curl and
// TypeScript samples on every operation) and the bundled descriptions for download.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { docsApis } from "../src/apis.mjs";
import { listSampleFiles, sampleCoverage, withCodeSamples } from "../src/code-samples.mjs";
import { renderLanding } from "../src/landing.mjs";
import { listOperations } from "../src/openapi.mjs";
import { externalResources, inlineRedocImages } from "../src/offline.mjs";

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const distDir = path.join(packageDir, "dist");
const samplesDir = path.join(packageDir, "samples");
const require = createRequire(import.meta.url);
const redoclyBin = path.join(path.dirname(require.resolve("@redocly/cli/package.json")), "bin", "cli.js");

const documents = docsApis.map((api) => ({ api, document: JSON.parse(readFileSync(api.bundleJson, "utf8")) }));

// A sample left behind after an operation is renamed would be type-checked but never shown.
const { orphaned } = sampleCoverage(
  documents.flatMap(({ document }) => listOperations(document).map((op) => op.operationId)),
  listSampleFiles(samplesDir),
);
if (orphaned.length > 0) {
  throw new Error(`samples without an operation: ${orphaned.map((id) => `samples/${id}.ts`).join(", ")}`);
}

rmSync(distDir, { recursive: true, force: true });
mkdirSync(distDir, { recursive: true });
const workDir = mkdtempSync(path.join(tmpdir(), "docs-build-"));
try {
  for (const { api, document } of documents) {
    const input = path.join(workDir, `${api.name}.openapi.json`);
    writeFileSync(input, JSON.stringify(withCodeSamples(document, api, samplesDir)));
    const output = path.join(distDir, `${api.name}.html`);
    execFileSync(
      process.execPath,
      [redoclyBin, "build-docs", input, "--inlineBundle", "--title", `${document.info.title} reference`, "-o", output],
      {
        cwd: workDir,
        // Telemetry would be a request to another host from the build and from every page view.
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    const html = inlineRedocImages(readFileSync(output, "utf8"));
    const external = externalResources(html);
    if (external.length > 0) throw new Error(`${api.name}.html would load from other hosts: ${external.join(", ")}`);
    writeFileSync(output, html);
    copyFileSync(api.bundleJson, path.join(distDir, `${api.name}.openapi.json`));
    copyFileSync(api.bundleYaml, path.join(distDir, `${api.name}.openapi.yaml`));
    console.log(`built dist/${api.name}.html`);
  }
  const landing = renderLanding({
    template: readFileSync(path.join(packageDir, "templates", "index.html"), "utf8"),
    cardTemplate: readFileSync(path.join(packageDir, "templates", "api-card.html"), "utf8"),
    apis: documents,
    quickstartDir: path.join(packageDir, "quickstart"),
  });
  const external = externalResources(landing);
  if (external.length > 0) throw new Error(`index.html would load from other hosts: ${external.join(", ")}`);
  writeFileSync(path.join(distDir, "index.html"), landing);
  console.log("built dist/index.html");
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
