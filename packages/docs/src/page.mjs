// A reference page's parts beside what Redoc renders: the copy of the description it shows (code
// samples and a "Try it" link on each operation and webhook), the console (the API's facts and the
// description it judges by, inline, and the shared script), and a page for an API that has no built
// one, made from a built page by swapping what differs between APIs. The docs server makes such
// pages for APIs of the registry that the build did not see (CONTRACT_API_DIRS), with no Redoc build.
import { readFileSync } from "node:fs";
import { bundleFiles, loadBundle, resolvePointer, walkOperations, walkWebhooks } from "@api-contracts/contract-core";
import { withCodeSamples } from "./code-samples.mjs";
import { escapeHtml } from "./landing.mjs";

/** @typedef {import("@api-contracts/contract-core").ApiDefinition} ApiDefinition */
/** @typedef {import("@api-contracts/contract-core").JsonObject} JsonObject */

/** The file name of the console's script beside the pages. */
export const CONSOLE_SCRIPT = "api-console.js";

/**
 * The description's files beside its page: the bundles the registry names (YAML and JSON, as `spec/`
 * publishes them), or the JSON of an API whose description is held in memory.
 * @param {ApiDefinition} api
 * @returns {Array<{ name: string, read: () => Buffer }>}
 */
export function descriptionFiles(api) {
  const files = bundleFiles(api);
  if (!files) return [{ name: `${api.name}.openapi.json`, read: () => Buffer.from(`${JSON.stringify(loadBundle(api), null, 2)}\n`) }];
  return [["yaml", files.yaml], ["json", files.json]].flatMap(([extension, source]) => (source === undefined ? [] : [{ name: `${api.name}.openapi.${extension}`, read: () => readFileSync(source) }]));
}

/**
 * The description as the reference page shows it: a copy with code samples, whose every operation
 * and webhook starts with a link that opens its console.
 * @param {JsonObject} document
 * @param {ApiDefinition} api
 * @param {string} samplesDir
 * @param {{ strict?: boolean }} [options] see `withCodeSamples`
 */
export function shownDescription(document, api, samplesDir, options) {
  const copy = withCodeSamples(document, api, samplesDir, options);
  for (const op of [...walkOperations(copy), ...walkWebhooks(copy)]) {
    const operation = /** @type {JsonObject} */ (resolvePointer(copy, op.pointer));
    const link = `<a class="api-console-try" href="?try=${encodeURIComponent(op.operationId)}" data-api-console="${encodeURIComponent(op.operationId)}">Try it</a>`;
    operation.description = typeof operation.description === "string" ? `${link}\n\n${operation.description}` : link;
  }
  return copy;
}

/** JSON inside a script element: `<` escaped so that no text in it can end the element early. */
const scriptJson = (/** @type {unknown} */ value) => JSON.stringify(value).replaceAll("<", "\\u003c").replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);

const CONSOLE_DATA = '<script id="api-console-data" type="application/json">';

/**
 * The console's data: the API's facts (its registry entry, without where its bundle is) and the
 * description it judges by.
 * @param {ApiDefinition} api
 * @param {JsonObject} document
 */
function consoleData(api, document) {
  const { bundle: _bundle, ...entry } = api;
  return scriptJson({ api: entry, document });
}

/**
 * The page with the console: the facts and the description inline (a page opened from disk can
 * fetch nothing), and the shared script.
 * @param {string} html
 * @param {ApiDefinition} api
 * @param {JsonObject} document
 */
export function withConsole(html, api, document) {
  const at = html.lastIndexOf("</body>");
  if (at < 0) throw new Error("the page has no </body> to add the console before");
  return `${html.slice(0, at)}${CONSOLE_DATA}${consoleData(api, document)}</script><script src="${CONSOLE_SCRIPT}" defer></script>${html.slice(at)}`;
}

/**
 * Replaces the text between two markers (the first `start`, the first `end` after it).
 * @param {string} html
 * @param {string} start
 * @param {string} end
 * @param {string} text
 */
function between(html, start, end, text) {
  const from = html.indexOf(start);
  const to = from < 0 ? -1 : html.indexOf(end, from + start.length);
  if (to < 0) throw new Error(`a built reference page has no ${start}…${end}: it cannot serve as another API's page`);
  return `${html.slice(0, from + start.length)}${text}${html.slice(to)}`;
}

/**
 * Another API's reference page made from a built one: its title, its description in Redoc's data
 * (Redoc renders it in the browser: the server-rendered markup is left out) and its console's data.
 * @param {string} built a page `buildDocs` wrote
 * @param {ApiDefinition} api
 * @param {JsonObject} document the API's bundled description
 * @param {string} samplesDir
 */
export function pageFromBuiltPage(built, api, document, samplesDir) {
  let html = between(built, "<title>", "</title>", `${escapeHtml(api.title)} reference`);
  html = between(html, '<div id="redoc">', '<script type="module">', "</div>\n      ");
  html = between(html, "const __redoc_definition = ", ";\n", scriptJson(shownDescription(document, api, samplesDir, { strict: false })));
  return between(html, CONSOLE_DATA, "</script>", consoleData(api, document));
}
