import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CONSOLE_SCRIPT } from "../src/page.mjs";
import { apiSummary, escapeHtml, fillTemplate, firstParagraph } from "../src/landing.mjs";
import { externalResources, inlineRedocImages } from "../src/offline.mjs";
import { bundleFiles, walkOperations, walkWebhooks } from "@api-contracts/contract-core";
import { distDir, loadApis } from "./helpers.js";

const apis = loadApis();
const read = (file: string) => readFileSync(path.join(distDir, file), "utf8");

describe("built pages", () => {
  it("dist holds the landing page, one reference page per API and both bundles", () => {
    for (const file of ["index.html", ...apis.flatMap(({ api }) => [`${api.name}.html`, `${api.name}.openapi.json`, `${api.name}.openapi.yaml`])]) {
      expect(existsSync(path.join(distDir, file)), file).toBe(true);
    }
  });

  it("the downloadable bundles are the bundles spec/ publishes", () => {
    for (const { api } of apis) {
      const files = bundleFiles(api)!;
      expect(read(`${api.name}.openapi.json`)).toBe(readFileSync(files.json, "utf8"));
      expect(read(`${api.name}.openapi.yaml`)).toBe(readFileSync(files.yaml!, "utf8"));
    }
  });

  it("no built page references a script, style, font or image on another host", () => {
    for (const file of ["index.html", ...apis.map(({ api }) => `${api.name}.html`)]) {
      expect(externalResources(read(file)), file).toEqual([]);
    }
  });

  it("the reference pages carry Redoc inline rather than from its CDN, and load only the console's script beside them", () => {
    for (const { api, document } of apis) {
      const html = read(`${api.name}.html`);
      expect(html).toMatch(/<script type="module">[\s\S]*hydrate\(__redoc_definition/);
      expect(html.match(/<script[^>]+src=[^>]*>/g)).toEqual([`<script src="${CONSOLE_SCRIPT}" defer>`]);
      expect(html).toContain(`<title>${escapeHtml(document.info.title)} reference</title>`);
    }
  });

  it("the reference pages show members and values beyond the seed as such", () => {
    for (const { api } of apis) {
      const html = read(`${api.name}.html`);
      expect(html).toContain(`"showExtensions":"x-beyond-seed,x-beyond-seed-values"`);
      expect(html, api.name).toMatch(/"x-beyond-seed(-values)?":/);
    }
  });

  it("the landing page names each API with its version and summary, links its reference and downloads, and lists its operations and webhooks", () => {
    const landing = read("index.html");
    for (const { api, document } of apis) {
      expect(landing).toContain(escapeHtml(document.info.title));
      expect(landing).toContain(`version ${escapeHtml(document.info.version)}`);
      expect(landing).toContain(escapeHtml(apiSummary(document.info)));
      for (const href of [`${api.name}.html`, `${api.name}.openapi.yaml`, `${api.name}.openapi.json`]) {
        expect(landing).toContain(`href="${href}"`);
      }
      for (const op of walkOperations(document)) expect(landing).toContain(escapeHtml(op.operation.summary));
      const webhooks = walkWebhooks(document);
      expect(webhooks.length).toBeGreaterThan(0);
      for (const webhook of webhooks) expect(landing).toContain(`<code>webhook ${escapeHtml(webhook.event)}</code> ${escapeHtml(webhook.operation.summary)}`);
      expect(landing).toContain(`http://127.0.0.1:${api.mockPort}`);
      expect(landing).toContain(escapeHtml(`from "${api.client!.package}"`));
    }
    expect(landing).not.toMatch(/\{\{/);
  });
});

describe("offline check", () => {
  it.each([
    ['<script src="https://cdn.redocly.com/redoc/v3/redoc.standalone.js"></script>'],
    ['<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">'],
    ['<link rel="modulepreload" href="//cdn.example.org/x.js">'],
    ["<style>@import url('https://example.org/theme.css');</style>"],
    ["<style>@font-face { src: url(https://example.org/f.woff2) }</style>"],
    ["<script>img.src = `https://cdn.redoc.ly/redoc/logo-mini.svg`</script>"],
  ])("flags %s", (html) => {
    expect(externalResources(html)).not.toEqual([]);
  });

  it("ignores links a reader follows and XML namespaces", () => {
    const html = `<a href="https://redocly.com/redoc/">docs</a><svg xmlns="http://www.w3.org/2000/svg"></svg>`;
    expect(externalResources(html)).toEqual([]);
  });

  it("replaces Redoc's CDN attribution images with a local one", () => {
    const html = "x=`https://cdn.redoc.ly/redoc/logo-mini-full.svg`,y=`https://cdn.redoc.ly/redoc/logo-mini.svg`";
    const local = inlineRedocImages(html);
    expect(local).not.toContain("cdn.redoc.ly");
    expect(local).toContain("data:image/svg+xml,");
  });
});

describe("landing template", () => {
  it("escapes values unless they are given as HTML", () => {
    expect(fillTemplate("<p>{{a}}</p>{{b}}", { a: `<b>"x" & 'y'</b>`, b: { html: "<i>ok</i>" } })).toBe(
      "<p>&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;</p><i>ok</i>",
    );
  });

  it("refuses a placeholder it has no value for", () => {
    expect(() => fillTemplate("{{entitlements.titel}}", {})).toThrow(/entitlements\.titel/);
  });

  it("says what an API does with info.summary, falling back to the description", () => {
    expect(apiSummary({ summary: "Check access.", description: "Long text." })).toBe("Check access.");
    expect(apiSummary({ description: "Long text.\n\nMore." })).toBe("Long text.");
  });

  it("summarises a description by its first paragraph as plain text", () => {
    expect(firstParagraph("Answers *may this customer*\nuse `x`? See [docs](https://e.org).\n\n## More")).toBe(
      "Answers may this customer use x? See docs.",
    );
  });
});
