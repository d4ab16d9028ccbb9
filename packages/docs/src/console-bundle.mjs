// The console beside every reference page: one script (console/, bundled with esbuild) shared by
// the pages, the description each page's console judges by, and a "Try it" link on each operation
// and webhook of the copy Redoc renders.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { resolvePointer, walkOperations, walkWebhooks } from "@api-contracts/contract-core";

/** @typedef {import("@api-contracts/contract-core").ApiDefinition} ApiDefinition */
/** @typedef {import("@api-contracts/contract-core").JsonObject} JsonObject */

const consoleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "console");

/** The file name of the console's script beside the pages. */
export const CONSOLE_SCRIPT = "api-console.js";

/**
 * The console's script, minified, with esbuild's metafile (to measure what each input weighs).
 * @returns {{ code: string, metafile: import("esbuild").Metafile }}
 */
export function bundleConsole() {
  const result = buildSync({
    entryPoints: [path.join(consoleDir, "main.ts")],
    absWorkingDir: path.dirname(consoleDir),
    bundle: true,
    minify: true,
    format: "iife",
    platform: "browser",
    target: ["chrome111", "firefox111", "safari16.4"],
    loader: { ".css": "text" },
    // The bundled packages' license notices stay with their code.
    legalComments: "eof",
    metafile: true,
    write: false,
    logLevel: "silent",
  });
  return { code: new TextDecoder().decode(result.outputFiles[0]?.contents), metafile: result.metafile };
}

/**
 * A copy of the description whose every operation and webhook starts with a link that opens its console.
 * @param {JsonObject} document
 * @returns {JsonObject}
 */
export function withConsoleLinks(document) {
  const copy = structuredClone(document);
  for (const op of [...walkOperations(copy), ...walkWebhooks(copy)]) {
    const operation = /** @type {JsonObject} */ (resolvePointer(copy, op.pointer));
    const link = `<a class="api-console-try" href="?try=${encodeURIComponent(op.operationId)}" data-api-console="${encodeURIComponent(op.operationId)}">Try it</a>`;
    operation.description = typeof operation.description === "string" ? `${link}\n\n${operation.description}` : link;
  }
  return copy;
}

/**
 * The page with the console: the facts it needs about the API and the description it judges by,
 * inline (a page opened from disk can fetch nothing), and the shared script.
 * @param {string} html
 * @param {ApiDefinition} api
 * @param {JsonObject} document
 */
export function withConsole(html, api, document) {
  const data = { api: { name: api.name, title: api.title, mockPort: api.mockPort, keyPrefix: api.keyPrefix, client: api.client }, document };
  // `<` escaped: no text in the description can end the script element early.
  const json = JSON.stringify(data).replaceAll("<", "\\u003c");
  const tags = `<script id="api-console-data" type="application/json">${json}</script><script src="${CONSOLE_SCRIPT}" defer></script>`;
  const at = html.lastIndexOf("</body>");
  if (at < 0) throw new Error("the page has no </body> to add the console before");
  return `${html.slice(0, at)}${tags}${html.slice(at)}`;
}
