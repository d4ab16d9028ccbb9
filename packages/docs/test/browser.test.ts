import { mkdirSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDocsServer, type DocsServer } from "../server.mjs";
import { follow, resolvePointer, walkOperations, walkWebhooks } from "@api-contracts/contract-core";
import { distDir, loadApis } from "./helpers.js";
import { planBrowserTests } from "./find-browser.js";
import { launchBrowser, openPage, showOperation } from "./browser-helpers.js";

const plan = planBrowserTests({ env: process.env, home: homedir() });
// One line in the run's output says why the browser tests did not run and how to make them run.
if ("skip" in plan) process.stderr.write(`${plan.skip}\n`);
const screenshots = path.join(distDir, "screenshots");
const apis = loadApis();

describe.skipIf("skip" in plan)("the pages in headless Chromium", () => {
  let browser: Browser;
  let docs: DocsServer;
  beforeAll(async () => {
    if ("fail" in plan) throw new Error(plan.fail);
    const executablePath = "run" in plan ? plan.run : "";
    mkdirSync(screenshots, { recursive: true });
    docs = await startDocsServer({ port: 0, root: distDir });
    browser = await launchBrowser(executablePath);
  });
  afterAll(async () => {
    await browser?.close();
    await docs?.close();
  });

  it("the landing page loads cleanly and names both APIs with their versions", async () => {
    const { page, problems, close } = await openPage(browser, `${docs.url}/`);
    try {
      const text = await page.locator("body").innerText();
      for (const { api, document } of apis) {
        expect(text).toContain(document.info.title);
        expect(text).toContain(`version ${document.info.version}`);
        await page.locator(`a[href="${api.name}.html"]`).first().waitFor();
      }
      await page.screenshot({ path: path.join(screenshots, "index.png"), fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it.each(apis.map((entry) => [entry.api.name, entry] as const))(
    "%s.html shows every operation and every webhook by its summary, with no console error and no failed request",
    async (name, { document }) => {
      const { page, problems, close } = await openPage(browser, `${docs.url}/${name}.html`);
      try {
        await page.getByRole("heading", { level: 1, name: document.info.title }).waitFor();
        await page.screenshot({ path: path.join(screenshots, `${name}.png`) });
        const operations = walkOperations(document);
        expect(operations.length).toBeGreaterThan(0);
        for (const op of operations) await showOperation(page, document, op);
        const webhooks = walkWebhooks(document);
        expect(webhooks.length).toBeGreaterThan(0);
        for (const webhook of webhooks) await showOperation(page, document, webhook);
        expect(problems).toEqual([]);
      } finally {
        await close();
      }
    },
  );

  it("the check operation offers every named example of its answer", async () => {
    const { api, document } = apis.find((a) => a.api.name === "entitlements")!;
    const op = walkOperations(document).find((o) => o.path === "/v1/balances.check")!;
    const answer = op.responses.find((r) => r.status === "200")!.media.find((m) => m.mediaType === "application/json")!;
    const examples = Object.values((resolvePointer(document, answer.pointer) as { examples: object }).examples).map(
      (example) => follow(document, example, "").node as { summary: string; value: { allowed: boolean } },
    );
    expect(examples.length).toBeGreaterThan(1);

    const { page, problems, close } = await openPage(browser, `${docs.url}/${api.name}.html`);
    try {
      await showOperation(page, document, op);
      // The answer panel's picker starts on the first example; it lists the others when opened.
      const picker = page.getByRole("button", { name: "Example" }).last();
      await picker.scrollIntoViewIfNeeded();
      await expect.poll(() => picker.innerText()).toContain(examples[0]!.summary);
      await picker.click();
      const menu = page.getByRole("menu").filter({ visible: true });
      await expect
        .poll(() => menu.getByRole("menuitem").allInnerTexts())
        .toEqual(examples.map((example) => example.summary));
      const denied = examples.find((e) => e.value.allowed === false);
      if (denied) {
        await menu.getByRole("menuitem", { name: denied.summary, exact: true }).click();
        await expect.poll(() => picker.innerText()).toContain(denied.summary);
        await expect.poll(() => page.locator("body").innerText()).toMatch(/"allowed":\s*false/);
      }
      await page.screenshot({ path: path.join(screenshots, `${api.name}-check-examples.png`) });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("a webhook shows its signature header and offers every named example of its payload", async () => {
    const { api, document } = apis.find((a) => a.api.name === "webdata")!;
    const webhook = walkWebhooks(document).find((w) => w.event === "crawl.page")!;
    const examples = webhook.requestBody!.media[0]!.examples.map((example) => (follow(document, (resolvePointer(document, webhook.requestBody!.media[0]!.pointer) as any).examples[example.name], "").node as { summary: string }).summary);
    expect(examples).toEqual(["Page scraped", "Page failed"]);

    const { page, problems, close } = await openPage(browser, `${docs.url}/${api.name}.html`);
    try {
      await showOperation(page, document, webhook);
      await expect.poll(() => page.locator("main").innerText()).toContain("X-Firecrawl-Signature");
      // The payload's picker shows the example it holds, the first one to start with.
      const picker = page.getByRole("button", { name: "Example" }).filter({ hasText: examples[0]! }).first();
      await picker.scrollIntoViewIfNeeded();
      await picker.click();
      const menu = page.getByRole("menu").filter({ visible: true });
      await expect.poll(() => menu.getByRole("menuitem").allInnerTexts()).toEqual(examples);
      await menu.getByRole("menuitem", { name: examples[1]!, exact: true }).click();
      await expect.poll(() => page.locator("body").innerText()).toMatch(/"error":\s*"Request timed out"/);
      await page.screenshot({ path: path.join(screenshots, `${api.name}-webhook-examples.png`) });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("no page load asks the server for /favicon.ico, which the docs do not have: each page names its icon inline", async () => {
    // What the docs server is asked, seen by a proxy in front of it: the browser's own icon request
    // is not one of the page's requests.
    const asked: string[] = [];
    const proxy: Server = createServer((req, res) => {
      asked.push(req.url ?? "");
      const { port } = new URL(docs.url);
      const onward = request({ host: "127.0.0.1", port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(onward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      for (const file of ["", ...apis.map(({ api }) => `${api.name}.html`)]) {
        // A context of its own: Playwright's request routing (openPage's) keeps the browser from asking for icons at all.
        const context = await browser.newContext();
        try {
          const page = await context.newPage();
          await page.goto(`${base}/${file}`, { waitUntil: "load" });
          expect(await page.evaluate(() => document.querySelector<HTMLLinkElement>('link[rel="icon"]')?.href.slice(0, 5))).toBe("data:");
          // The icon is asked for after the load, if at all.
          await page.waitForTimeout(1_500);
        } finally {
          await context.close();
        }
      }
      expect(asked.filter((url) => url.startsWith("/favicon"))).toEqual([]);
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it("a reference page also works opened from disk", async () => {
    const { document } = apis[0]!;
    const op = walkOperations(document)[0]!;
    const { page, problems, close } = await openPage(browser, pathToFileURL(path.join(distDir, `${apis[0]!.api.name}.html`)).href);
    try {
      await showOperation(page, document, op);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
