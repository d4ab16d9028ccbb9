// The landing page: a hand-written template whose {{placeholders}} are filled from the bundles,
// so titles, versions and descriptions never disagree with the reference pages.
import { readFileSync } from "node:fs";
import path from "node:path";
import { listOperations } from "./openapi.mjs";

/** @typedef {import("./apis.mjs").DocsApi} DocsApi */

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
 * @param {{ template: string, cardTemplate: string, apis: { api: DocsApi, document: any }[], quickstartDir: string }} input
 * @returns {string}
 */
export function renderLanding({ template, cardTemplate, apis, quickstartDir }) {
  /** @type {Record<string, string | { html: string }>} */
  const values = {};
  const cards = [];
  for (const { api, document } of apis) {
    const operations = listOperations(document)
      .map(
        (op) =>
          `<li><code>${escapeHtml(`${op.method.toUpperCase()} ${op.path}`)}</code> ${escapeHtml(op.summary)}` +
          `${op.deprecated ? ' <span class="deprecated">deprecated</span>' : ""}</li>`,
      )
      .join("\n          ");
    cards.push(
      fillTemplate(cardTemplate, {
        name: api.name,
        title: document.info.title,
        version: document.info.version,
        summary: apiSummary(document.info),
        server: document.servers?.[0]?.url ?? "",
        operations: { html: operations },
      }),
    );
    Object.assign(values, {
      [`${api.name}.title`]: document.info.title,
      [`${api.name}.clientPackage`]: api.clientPackage,
      [`${api.name}.mockUrl`]: `http://127.0.0.1:${api.mockPort}`,
      [`${api.name}.quickstart`]: readFileSync(path.join(quickstartDir, `${api.name}.ts`), "utf8").trimEnd(),
    });
  }
  values.apiCards = { html: cards.join("") };
  return fillTemplate(template, values);
}
