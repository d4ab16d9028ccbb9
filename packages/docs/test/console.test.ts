import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer } from "@api-contracts/mock-server";
import { API_DIRS_VARIABLE, walkOperations, walkWebhooks } from "@api-contracts/contract-core";
import { THIRD_API, THIRD_API_DIR } from "@api-contracts/dev-tools/testing";
import { startDocsServer, type DocsServer } from "../server.mjs";
import { bundleConsole } from "../src/console-bundle.mjs";
import { launchBrowser, openPage, showOperation } from "./browser-helpers.js";
import { planBrowserTests } from "./find-browser.js";
import { distDir, loadApis } from "./helpers.js";

// A third API, named only by its folder: the docs were built without it, and the docs server makes
// its page; its console works like the others', against its own mock.
process.env[API_DIRS_VARIABLE] = THIRD_API_DIR;

const plan = planBrowserTests({ env: process.env, home: homedir() });
const apis = loadApis();
const operations = apis.flatMap(({ api, document }) => walkOperations(document).map((op) => ({ api: api.name, operationId: op.operationId })));
const webhooks = apis.flatMap(({ api, document }) => walkWebhooks(document).map((webhook) => ({ api: api.name, operationId: webhook.operationId })));

/** What an answer the console expects (a refusal sent anyway, a faulty server's) leaves in the browser's log: not a problem of the page. */
const expectedAnswer = (problem: string) => /\/_relay\/|the server responded with a status of [45]\d\d/.test(problem);

describe("the console's script", () => {
  it("is measured: the whole script, contract-core's judgement included, at most 80 kB gzipped", () => {
    const { code, metafile } = bundleConsole();
    const whole = gzipSync(code, { level: 9 }).length;
    // What the console's own modules weigh beside what it bundles from contract-core and its dependencies.
    const output = Object.values(metafile.outputs)[0]!;
    const ownBytes = Object.entries(output.inputs)
      .filter(([input]) => input.startsWith("console/"))
      .reduce((sum, [, { bytesInOutput }]) => sum + bytesInOutput, 0);
    process.stdout.write(`console script: ${code.length} bytes minified, ${whole} gzipped; its own modules ${ownBytes} of the minified bytes\n`);
    expect(whole).toBeLessThanOrEqual(80_000);
  });
});

describe.skipIf("skip" in plan)("the console in headless Chromium", () => {
  let browser: Browser;
  let docs: DocsServer;
  const mocks: Record<string, { url: string; close(): Promise<void> }> = {};
  /** A server that breaks the contract on purpose: its check answer lacks `customer_id`, and it sends no CORS headers. */
  let faulty: Server;
  let faultyUrl: string;

  beforeAll(async () => {
    if ("fail" in plan) throw new Error(plan.fail);
    for (const { api } of apis) mocks[api.name] = await startMockServer({ service: api.name, port: 0 });
    faulty = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ allowed: true, entity_id: null, required_balance: 1, balance: null, flag: null }));
      });
    });
    await new Promise<void>((resolve) => faulty.listen(0, "127.0.0.1", resolve));
    faultyUrl = `http://127.0.0.1:${(faulty.address() as AddressInfo).port}`;
    docs = await startDocsServer({ port: 0, root: distDir, targets: Object.fromEntries(Object.entries(mocks).map(([name, mock]) => [name, { mock: mock.url }])) });
    browser = await launchBrowser("run" in plan ? plan.run : "");
  });
  afterAll(async () => {
    await browser?.close();
    await docs?.close();
    for (const mock of Object.values(mocks)) await mock.close();
    await new Promise((resolve) => faulty?.close(resolve));
  });

  /** The page with one operation's console open, found by its name as a screen reader finds it. */
  async function openConsole(api: string, operationId: string, server: { url: string } = docs) {
    const opened = await openPage(browser, `${server.url}/${api}.html?try=${encodeURIComponent(operationId)}`);
    const region = opened.page.getByRole("region", { name: `Try ${operationId}`, exact: true });
    await region.waitFor();
    return { ...opened, region };
  }

  /** Runs a test with one operation's console open, and closes its page whatever happens. */
  async function inConsole(api: string, operationId: string, test: (opened: Awaited<ReturnType<typeof openConsole>>) => Promise<void>) {
    const opened = await openConsole(api, operationId);
    try {
      await test(opened);
    } finally {
      await opened.close();
    }
  }

  const verdictOf = (region: ReturnType<Page["getByRole"]>) => region.getByRole("region", { name: "Contract verdict" });
  const responseOf = (region: ReturnType<Page["getByRole"]>) => region.getByRole("region", { name: "Response" });
  const requestVerdictOf = (region: ReturnType<Page["getByRole"]>) => region.getByRole("region", { name: "Request verdict" });
  const send = (region: ReturnType<Page["getByRole"]>) => region.getByRole("button", { name: "Send", exact: true }).click();

  it.each(apis.map(({ api }) => [api.name] as const))(
    "%s: every operation's prefilled example, sent to the mock, is answered, and the verdict is that the answer keeps the contract",
    async (api) => {
      const mine = operations.filter((entry) => entry.api === api);
      const { page, problems, close } = await openConsole(api, mine[0]!.operationId);
      try {
        const outcomes: Record<string, string> = {};
        for (const { operationId } of mine) {
          await page.getByRole("combobox", { name: "Operation" }).selectOption(operationId);
          const region = page.getByRole("region", { name: `Try ${operationId}`, exact: true });
          expect(await region.getByRole("textbox", { name: "Base URL" }).inputValue()).toBe(mocks[api]!.url);
          expect(await region.getByRole("textbox", { name: "API key" }).inputValue()).not.toBe("");
          await region.getByRole("button", { name: "Send", exact: true }).click();
          await expect.poll(() => verdictOf(region).innerText()).toMatch(/contract/);
          const answer = (await responseOf(region).innerText()).split("\n")[0]!;
          outcomes[operationId] = `${answer.replace(/ in \d+ ms$/, "")} ${(await verdictOf(region).innerText()).split(":")[0]}`;
          await page.screenshot({ path: path.join(distDir, "screenshots", `console-${operationId}.png`) });
        }
        expect(outcomes).toEqual(Object.fromEntries(mine.map(({ operationId }) => [operationId, expect.stringMatching(/^2\d\d ✓ Keeps the contract$/)])));
        expect(problems).toEqual([]);
      } finally {
        await close();
      }
    },
  );

  it("a request the contract refuses is held back with what the service would answer; sent anyway, the mock's 400 appears with its verdict", async () => {
    await inConsole("entitlements", "checkAccess", async ({ problems, region }) => {
      const body = region.getByRole("textbox", { name: "Body (JSON)" });
      await body.fill(JSON.stringify({ feature_id: "messages" }));
      await send(region);
      const held = requestVerdictOf(region);
      await expect.poll(() => held.innerText()).toMatch(/Not sent: the service would answer 400 invalid_inputs: body\/customer_id is required/);
      expect(await body.getAttribute("aria-invalid")).toBe("true");
      expect(await responseOf(region).innerText()).toBe("Not sent.");

      await region.getByRole("button", { name: "Send anyway" }).click();
      await expect.poll(() => responseOf(region).innerText()).toMatch(/^400 in/);
      expect(await responseOf(region).innerText()).toContain("invalid_inputs");
      await expect.poll(() => verdictOf(region).innerText()).toMatch(/Keeps the contract: 400 application\/json/);
      expect(problems.filter((problem) => !expectedAnswer(problem))).toEqual([]);
    });
  });

  it("a request that keeps the contract says so before it goes", async () => {
    await inConsole("webdata", "getTokenUsage", async ({ region }) => {
      await send(region);
      await expect.poll(() => requestVerdictOf(region).innerText()).toBe("✓ The request keeps the contract.");
      await expect.poll(() => verdictOf(region).innerText()).toMatch(/Keeps the contract: 200/);
    });
  });

  it("a parameter the contract refuses is marked at its field", async () => {
    await inConsole("webdata", "getMonitor", async ({ region }) => {
      const field = region.getByRole("textbox", { name: "monitorId (path, required)" });
      await field.fill("not-a-uuid");
      await send(region);
      await expect.poll(() => field.getAttribute("aria-invalid")).toBe("true");
      expect(await requestVerdictOf(region).innerText()).toContain("path /monitorId");
    });
  });

  it("pointed at a server without CORS headers, through the docs server's relay, the verdict names the violation at its pointer", async () => {
    await inConsole("entitlements", "checkAccess", async ({ problems, region }) => {
      await region.getByRole("textbox", { name: "Base URL" }).fill(faultyUrl);
      // The mock's Prefer choices are for the mock alone.
      await expect.poll(() => region.getByRole("group", { name: "Mock answer (Prefer header)" }).isVisible()).toBe(false);
      await region.getByRole("button", { name: "Send", exact: true }).click();
      await expect.poll(() => verdictOf(region).innerText()).toMatch(/Breaks the contract/);
      const verdict = await verdictOf(region).innerText();
      expect(verdict).toContain("body /customer_id");
      expect(verdict).toContain("customer_id is required");
      expect(problems.filter((problem) => !expectedAnswer(problem))).toEqual([]);
    });
  });

  it("the mock's Prefer choices are sent: a named example comes back as chosen", async () => {
    await inConsole("entitlements", "checkAccess", async ({ region }) => {
      await region.getByRole("combobox", { name: "Answer example" }).selectOption("denied-usage-limit");
      await region.getByRole("button", { name: "Copy as curl" }).click();
      expect(await region.getByLabel("Copied command").innerText()).toContain("prefer: example=denied-usage-limit");
      await region.getByRole("button", { name: "Send", exact: true }).click();
      await expect.poll(() => verdictOf(region).innerText()).toMatch(/Keeps the contract: 200/);
      expect(await responseOf(region).innerText()).toMatch(/"allowed": false/);
    });
  });

  it("a failure of the relay (the mock's reset fault) is shown as the relay's, worded as a closed connection, and not judged as the target's answer", async () => {
    await inConsole("webdata", "getTokenUsage", async ({ problems, region }) => {
      await region.getByRole("combobox", { name: "Fault" }).selectOption("reset");
      await send(region);
      await expect.poll(() => responseOf(region).innerText()).toMatch(/relay answered 502 \(closed\), not the target: The target closed the connection without answering/);
      expect(await responseOf(region).innerText()).not.toContain("could not be reached");
      expect(await verdictOf(region).innerText()).toBe("No verdict: the docs server's relay answered, not the target.");
      expect(problems.filter((problem) => !expectedAnswer(problem))).toEqual([]);
    });
  });

  it("after Send the verdict is in view in a 900 px window, above the answer", async () => {
    await inConsole("entitlements", "checkAccess", async ({ page, region }) => {
      await send(region);
      await expect.poll(() => verdictOf(region).innerText()).toMatch(/Keeps the contract/);
      const box = await verdictOf(region).evaluate((element) => {
        const { top, bottom } = element.getBoundingClientRect();
        return { top, bottom, height: window.innerHeight };
      });
      expect(box.height).toBe(900);
      expect(box.top).toBeGreaterThanOrEqual(0);
      expect(box.bottom).toBeLessThanOrEqual(box.height);
      const [verdictTop, answerTop] = await Promise.all([verdictOf(region), responseOf(region)].map((at) => at.evaluate((element) => element.getBoundingClientRect().top)));
      expect(verdictTop).toBeLessThan(answerTop!);
      expect(await page.evaluate(() => window.scrollY)).toBe(0);
    });
  });

  it("switching the target keeps the key; a request with none is held back with the service's 401, not sent without a word", async () => {
    await inConsole("entitlements", "trackUsage", async ({ region }) => {
      const key = region.getByRole("textbox", { name: "API key" });
      expect(await key.inputValue()).toBe("am_sk_test");
      await region.getByRole("combobox", { name: "Target" }).selectOption("other");
      expect(await key.inputValue()).toBe("am_sk_test");
      expect(await region.getByText("am_sk_test is the mock's test key").count()).toBe(1);
      await key.fill("");
      await send(region);
      await expect.poll(() => requestVerdictOf(region).innerText()).toMatch(/Not sent: the service would answer 401 no_secret_key: header\/authorization is missing/);
      expect(await responseOf(region).innerText()).toBe("Not sent.");
    });
  });

  it("a target is offered only when it runs: no reference server beside the mock, and only the reference server when it alone runs", async () => {
    const mockOnly = await openConsole("entitlements", "checkAccess");
    try {
      const options = await mockOnly.region.getByRole("combobox", { name: "Target" }).locator("option").allInnerTexts();
      expect(options).toEqual([`Mock (${mocks.entitlements!.url})`, "Another base URL (type it below)"]);
    } finally {
      await mockOnly.close();
    }
    const stateful = await startDocsServer({ port: 0, root: distDir, targets: { entitlements: { reference: mocks.entitlements!.url } } });
    try {
      const { region, close } = await openConsole("entitlements", "checkAccess", stateful);
      const target = region.getByRole("combobox", { name: "Target" });
      expect(await target.locator("option").allInnerTexts()).toEqual([`Reference server (${mocks.entitlements!.url})`, "Another base URL (type it below)"]);
      expect(await target.inputValue()).toBe("reference");
      expect(await region.getByRole("textbox", { name: "Base URL" }).inputValue()).toBe(mocks.entitlements!.url);
      await close();
    } finally {
      await stateful.close();
    }
  });

  it("a request held back takes the previous answer and its verdict off the screen", async () => {
    await inConsole("entitlements", "checkAccess", async ({ region }) => {
      await send(region);
      await expect.poll(() => verdictOf(region).innerText()).toMatch(/Keeps the contract: 200/);
      await region.getByRole("textbox", { name: "Body (JSON)" }).fill("{}");
      await send(region);
      await expect.poll(() => requestVerdictOf(region).innerText()).toMatch(/Not sent/);
      expect(await responseOf(region).innerText()).toBe("Not sent.");
      expect(await verdictOf(region).innerText()).toBe("No answer to judge: the request was held back.");
    });
  });

  it("the address names the open console: choosing another operation changes it, closing takes it away", async () => {
    await inConsole("entitlements", "checkAccess", async ({ page }) => {
      await page.getByRole("combobox", { name: "Operation" }).selectOption("trackUsage");
      await page.getByRole("region", { name: "Try trackUsage", exact: true }).waitFor();
      expect(new URL(page.url()).searchParams.get("try")).toBe("trackUsage");
      await page.getByRole("button", { name: "Close console" }).click();
      expect(new URL(page.url()).searchParams.has("try")).toBe(false);
    });
  });

  it("the target's headers are its own: the relay's Vary: X-Relay-Target and X-Relay are not among them", async () => {
    await inConsole("webdata", "getTokenUsage", async ({ region }) => {
      await send(region);
      await expect.poll(() => verdictOf(region).innerText()).toMatch(/Keeps the contract/);
      await region.getByText(/^Headers \(\d+\)$/).click();
      const headers = (await responseOf(region).locator("dl").innerText()).toLowerCase();
      expect(headers).toContain("content-type");
      expect(headers).not.toContain("x-relay");
    });
  });

  it("the key is in no URL, storage entry, console message or copied command", async () => {
    const key = "am_sk_test_only_in_memory_5c2e";
    const { page, region, close } = await openConsole("entitlements", "trackUsage");
    const seen: string[] = [];
    page.on("console", (message) => seen.push(message.text()));
    page.on("request", (request) => seen.push(request.url()));
    try {
      await region.getByRole("textbox", { name: "API key" }).fill(key);
      await send(region);
      await expect.poll(() => verdictOf(region).innerText()).toMatch(/Keeps the contract/);
      const copies: string[] = [];
      for (const name of ["Copy as curl", "Copy as TypeScript"]) {
        await region.getByRole("button", { name }).click();
        copies.push(await region.getByLabel("Copied command").innerText());
      }
      // One key variable everywhere: the one the API's facts name, which the page's own curl sample reads too.
      const variable = apis.find((entry) => entry.api.name === "entitlements")!.api.key.variable;
      const definition = JSON.parse((await (await fetch(`${docs.url}/entitlements.html`)).text()).match(/const __redoc_definition = (.*);\n/)![1]!);
      const [sample] = walkOperations(definition).find((op) => op.operationId === "trackUsage")!.operation["x-codeSamples"] as { source: string }[];
      expect(sample!.source).toContain(`-H "Authorization: Bearer $${variable}"`);
      expect(copies[0]).toContain(`-H "Authorization: Bearer $${variable}"`);
      expect(copies[1]).toContain(`apiKey: process.env.${variable}`);
      expect(copies[1]).toContain('client.POST("/v1/balances.track"');
      const stored = await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookies: document.cookie, url: location.href, history: history.state }));
      const cookies = JSON.stringify(await page.context().cookies());
      for (const place of [...copies, stored, cookies, page.url(), ...seen]) expect(place).not.toContain(key);
    } finally {
      await close();
    }
  });

  it("the third API, named only by CONTRACT_API_DIRS, gets a page the docs server made: Redoc shows its operations, and its console sends to its mock", async () => {
    const { document } = apis.find((entry) => entry.api.name === THIRD_API)!;
    await inConsole(THIRD_API, "createNote", async ({ page, problems, region }) => {
      await page.getByRole("heading", { level: 1, name: document.info.title }).waitFor();
      for (const op of walkOperations(document)) await showOperation(page, document, op);
      await send(region);
      await expect.poll(() => verdictOf(region).innerText()).toMatch(/Keeps the contract: 201 application\/json/);
      await region.getByRole("button", { name: "Copy as curl" }).click();
      expect(await region.getByLabel("Copied command").innerText()).toContain('-H "Authorization: Bearer $NOTES_API_KEY"');
      // No typed client: curl is the copy it offers.
      expect(await region.getByRole("button", { name: "Copy as TypeScript" }).count()).toBe(0);
      await region.getByRole("textbox", { name: "Body (JSON)" }).fill('{"text": ""}');
      await send(region);
      await expect.poll(() => requestVerdictOf(region).innerText()).toMatch(/Not sent: the service would answer 400: body\/text/);
      expect(problems).toEqual([]);
    });
  });

  it("every operation and webhook has a Try it link that opens its console beside the page, and Escape closes it", async () => {
    const { document } = apis.find((entry) => entry.api.name === "webdata")!;
    const { page, problems, close } = await openPage(browser, `${docs.url}/webdata.html`);
    try {
      for (const op of [...walkOperations(document), ...walkWebhooks(document)]) {
        await showOperation(page, document, op);
        await page.locator(`main a[data-api-console="${op.operationId}"]`).first().waitFor();
      }
      const link = page.locator('main a[data-api-console="monitorPage"]').first();
      await link.focus();
      await page.keyboard.press("Enter");
      const region = page.getByRole("region", { name: "Try monitorPage" });
      await region.waitFor();
      await page.keyboard.press("Escape");
      await expect.poll(() => region.isVisible()).toBe(false);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it.each(apis.filter(({ document }) => walkWebhooks(document).length > 0).map(({ api }) => [api.name] as const))(
    "%s: each webhook's signed example call keeps the contract, and a changed body fails its signature",
    async (api) => {
      const mine = webhooks.filter((entry) => entry.api === api);
      const { page, problems, close } = await openConsole(api, mine[0]!.operationId);
      try {
        for (const { operationId } of mine) {
          await page.getByRole("combobox", { name: "Operation" }).selectOption(operationId);
          const region = page.getByRole("region", { name: `Try ${operationId}`, exact: true });
          await region.getByRole("button", { name: "Judge the call" }).click();
          await expect.poll(() => verdictOf(region).innerText(), { message: operationId }).toMatch(/Keeps the contract: .* signature included/);
          const body = region.getByRole("textbox", { name: "Raw body" });
          await body.fill(`${await body.inputValue()} `);
          await region.getByRole("button", { name: "Judge the call" }).click();
          await expect.poll(() => verdictOf(region).innerText(), { message: operationId }).toMatch(/Breaks the contract/);
          expect(await verdictOf(region).innerText()).toMatch(/header \/(x-firecrawl-signature|svix-signature)/);
        }
        expect(problems).toEqual([]);
      } finally {
        await close();
      }
    },
  );

  it("opened from disk, the page sends the request itself and, refused by the target's missing CORS headers, says so and how to fix it", async () => {
    const { page, close } = await openPage(browser, `${pathToFileURL(path.join(distDir, "entitlements.html")).href}?try=checkAccess`);
    try {
      const region = page.getByRole("region", { name: "Try checkAccess" });
      await region.getByRole("textbox", { name: "Base URL" }).fill(faultyUrl);
      await region.getByRole("button", { name: "Send", exact: true }).click();
      await expect.poll(() => responseOf(region).innerText()).toMatch(/CORS/);
      expect(await responseOf(region).innerText()).toContain("npm start");
    } finally {
      await close();
    }
  });
});
