// The landing page: a hand-written template whose {{placeholders}} are filled from the bundles,
// so titles, versions and descriptions never disagree with the reference pages.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { walkOperations, walkWebhooks } from "@api-contracts/contract-core";
import { curlSample } from "./code-samples.mjs";
import { ICON_LINK } from "./offline.mjs";


const templatesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "templates");

/** @param {unknown} text */
export function escapeHtml(text) {
  return String(text)
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/**
 * The first paragraph of a Markdown description, as plain text on one line.
 * @param {unknown} markdown
 */
export function firstParagraph(markdown) {
  const paragraph = String(markdown ?? "").trim().split(/\n\s*\n/)[0] ?? "";
  return paragraph
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/[*_`]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * What an API does in one sentence: `info.summary`, else the description's first paragraph.
 * @param {{ summary?: string, description?: string }} info
 */
export function apiSummary(info) {
  return info.summary?.trim() || firstParagraph(info.description);
}

/**
 * Replaces every {{name}} in the template. Values are escaped unless given as `{ html }`.
 * An unknown placeholder is an error, so a typo cannot ship as literal braces.
 * @param {string} template
 * @param {Record<string, string | { html: string }>} values
 */
export function fillTemplate(template, values) {
  return template.replace(/\{\{\s*([\w.-]+)\s*\}\}/g, (_match, key) => {
    if (!(key in values)) throw new Error(`the template names an unknown value {{${key}}}`);
    const value = /** @type {string | { html: string }} */ (values[key]);
    return typeof value === "string" ? escapeHtml(value) : value.html;
  });
}

/**
 * Names in running text: `a`, `a and b`, `a, b and c`.
 * @param {string[]} names
 */
export function listInProse(names) {
  return names.length <= 2 ? names.join(" and ") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/**
 * @typedef {object} LandingApi
 * @property {import("@api-contracts/contract-core").ApiDefinition} api
 * @property {any} document its bundled description
 * @property {string[]} downloads files of its description beside the page: `webdata.openapi.json`
 */

/**
 * An API's quick start: `quickstart/<api>.ts`, a call through its typed client; for an API without
 * a client, its first operation as curl against its mock. With `strict` (the build) an API with a
 * client must have its file.
 * @param {LandingApi} entry
 * @param {string} quickstartDir
 * @param {boolean} strict
 */
function quickstart({ api, document }, quickstartDir, strict) {
  const file = path.join(quickstartDir, `${api.name}.ts`);
  if (existsSync(file)) return readFileSync(file, "utf8").trimEnd();
  if (api.client && strict) throw new Error(`no quick start for ${api.name}: write quickstart/${api.name}.ts`);
  const [first] = walkOperations(document);
  if (!first) return "";
  const key = `${api.key.variable}=${api.key.prefix}test`;
  return `# ${document.info.title}: the mock takes any key that starts with ${api.key.prefix}\nexport ${key}\n${curlSample(document, first, api, `http://127.0.0.1:${api.mockPort}`)}`;
}

/**
 * The landing page (templates/index.html): a card per API (templates/api-card.html), and a quick
 * start that names every API's mock and client.
 * @param {{ apis: LandingApi[], quickstartDir: string, strict?: boolean }} input
 * @returns {string}
 */
export function renderLanding({ apis, quickstartDir, strict = true }) {
  const cardTemplate = readFileSync(path.join(templatesDir, "api-card.html"), "utf8");
  const cards = apis.map(({ api, document, downloads }) => {
    const operations = [
      ...walkOperations(document).map(
        (op) =>
          `<li><code>${escapeHtml(`${op.method} ${op.path}`)}</code> ${escapeHtml(op.operation.summary ?? "")}` +
          `${op.operation.deprecated === true ? ' <span class="deprecated">deprecated</span>' : ""}</li>`,
      ),
      // The calls the service makes to your endpoint, named by their event.
      ...walkWebhooks(document).map((webhook) => `<li><code>${escapeHtml(`webhook ${webhook.event}`)}</code> ${escapeHtml(webhook.operation.summary ?? "")}</li>`),
    ].join("\n          ");
    const links = downloads
      .map((file) => `<a href="${escapeHtml(file)}" download>OpenAPI (${escapeHtml(path.extname(file).slice(1).toUpperCase())})</a>`)
      .join("\n          ");
    return fillTemplate(cardTemplate, {
      name: api.name,
      title: document.info.title,
      version: document.info.version,
      summary: apiSummary(document.info),
      server: document.servers?.[0]?.url ?? "",
      operations: { html: operations },
      downloads: { html: links },
    });
  });
  const titles = apis.map(({ document }) => String(document.info.title));
  const mockLines = apis.map(({ document, api }) => ({ label: `${document.info.title} mock`, url: `http://127.0.0.1:${api.mockPort}` }));
  mockLines.push({ label: "these docs", url: "http://127.0.0.1:4000" });
  const width = Math.max(...mockLines.map(({ label }) => label.length)) + 2;
  const quickstarts = apis.map((entry) => `<pre><code>${escapeHtml(quickstart(entry, quickstartDir, strict))}</code></pre>`);
  return fillTemplate(readFileSync(path.join(templatesDir, "index.html"), "utf8"), {
    apiTitles: listInProse(titles),
    apiCards: { html: cards.join("") },
    mockUrls: mockLines.map(({ label, url }) => `# ${label.padEnd(width)}${url}`).join("\n"),
    clientPackages: { html: listInProse(apis.flatMap(({ api }) => (api.client ? [`<code>${escapeHtml(api.client.package)}</code>`] : []))) },
    icon: { html: ICON_LINK },
    quickstarts: { html: quickstarts.join("\n    ") },
  });
}
