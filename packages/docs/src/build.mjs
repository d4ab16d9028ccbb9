// Builds the pages: the landing page, one self-contained Redoc page per registered API (curl samples
// on every operation, TypeScript ones where the API has a typed client) and each API's bundled
// description for download.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { listApis, loadBundle } from "@api-contracts/contract-core";
import { bundleConsole } from "./console-bundle.mjs";
import { listSampleFiles, sampleCoverage, sampledOperations } from "./code-samples.mjs";
import { renderLanding } from "./landing.mjs";
import { externalResources, inlineRedocImages, withIcon } from "./offline.mjs";
import { CONSOLE_SCRIPT, descriptionFiles, shownDescription, withConsole } from "./page.mjs";

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const redoclyBin = path.join(path.dirname(require.resolve("@redocly/cli/package.json")), "bin", "cli.js");

/**
 * @param {string} label
 * @param {string} html
 */
function refuseExternal(label, html) {
  const external = externalResources(html);
  if (external.length > 0) throw new Error(`${label} would load from other hosts: ${external.join(", ")}`);
}

/**
 * Builds the pages of every given API into outDir, replacing what was there.
 * @param {{ apis?: import("@api-contracts/contract-core").ApiDefinition[], outDir?: string, samplesDir?: string, quickstartDir?: string, log?: (line: string) => void }} [options]
 * @returns {{ files: string[] }} the files written, relative to outDir
 */
export function buildDocs({
  apis = listApis(),
  outDir = path.join(packageDir, "dist"),
  samplesDir = path.join(packageDir, "samples"),
  quickstartDir = path.join(packageDir, "quickstart"),
  log = () => {},
} = {}) {
  const documents = apis.map((api) => ({ api, document: /** @type {any} */ (loadBundle(api)) }));

  // A sample left behind after an operation is renamed would be type-checked but never shown.
  const { orphaned } = sampleCoverage(
    documents.flatMap(({ document }) => sampledOperations(document).map((op) => op.operationId)),
    listSampleFiles(samplesDir),
  );
  if (orphaned.length > 0) {
    throw new Error(`samples without an operation: ${orphaned.map((id) => `samples/${id}.ts`).join(", ")}`);
  }

  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const files = [];
  const landingApis = [];
  const workDir = mkdtempSync(path.join(tmpdir(), "docs-build-"));
  try {
    const script = bundleConsole().code;
    refuseExternal(CONSOLE_SCRIPT, script);
    writeFileSync(path.join(outDir, CONSOLE_SCRIPT), script);
    files.push(CONSOLE_SCRIPT);
    for (const { api, document } of documents) {
      const input = path.join(workDir, `${api.name}.openapi.json`);
      writeFileSync(input, JSON.stringify(shownDescription(document, api, samplesDir)));
      const output = path.join(outDir, `${api.name}.html`);
      execFileSync(
        process.execPath,
        // Members and values the live service accepts beyond the seed are shown as such next to their schema.
        [redoclyBin, "build-docs", input, "--inlineBundle", "--openapi.showExtensions=x-beyond-seed,x-beyond-seed-values", "--title", `${document.info.title} reference`, "-o", output],
        {
          cwd: workDir,
          // Telemetry would be a request to another host from the build and from every page view.
          env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
          stdio: ["ignore", "ignore", "pipe"],
        },
      );
      const html = withConsole(withIcon(inlineRedocImages(readFileSync(output, "utf8"))), api, document);
      refuseExternal(`${api.name}.html`, html);
      writeFileSync(output, html);
      const downloads = descriptionFiles(api).map(({ name, read }) => (writeFileSync(path.join(outDir, name), read()), name));
      files.push(`${api.name}.html`, ...downloads);
      landingApis.push({ api, document, downloads });
      log(`built ${api.name}.html`);
    }
    const landing = renderLanding({ apis: landingApis, quickstartDir });
    refuseExternal("index.html", landing);
    writeFileSync(path.join(outDir, "index.html"), landing);
    files.push("index.html");
    log("built index.html");
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  return { files };
}
