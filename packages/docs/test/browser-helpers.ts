import { chromium, type Browser, type Page } from "playwright-core";
import type { WalkedOperation } from "@api-contracts/contract-core";

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Headless Chromium with nothing of its own reaching the network. */
export function launchBrowser(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
}

/** A page whose every request to a host other than 127.0.0.1 is blocked, and whose troubles are recorded. */
export async function openPage(browser: Browser, url: string) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  await context.route("**/*", async (route) => {
    const target = new URL(route.request().url());
    if (target.protocol === "http:" || target.protocol === "https:" ? target.hostname === "127.0.0.1" : true) {
      await route.continue();
    } else {
      problems.push(`request to another host: ${target.href}`);
      await route.abort("blockedbyclient");
    }
  });
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => problems.push(`failed request: ${request.url()} (${request.failure()?.errorText})`));
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()} for ${response.url()}`);
  });
  await page.goto(url, { waitUntil: "load" });
  return { page, problems, close: () => context.close() };
}


/** Opens an operation through the sidebar and waits for its heading in the content. */
export async function showOperation(page: Page, document: any, op: WalkedOperation) {
  const summary = String(op.operation.summary);
  const link = page.getByRole("link", { name: new RegExp(`^${escapeRegExp(summary)}\\s*${op.method}`, "i") }).first();
  // Operations sit in collapsed tag groups until their tag is opened. A click on the tag toggles
  // its group, so one that was open but not yet drawn is closed by it: the next click opens it.
  const tag = (op.operation.tags as string[] | undefined)?.[0];
  const label = document.tags?.find((t: any) => t.name === tag)?.["x-displayName"] ?? tag;
  for (let attempt = 0; attempt < 3 && !(await link.isVisible()); attempt++) {
    await page.getByRole("link", { name: label, exact: true }).first().click();
    await link.waitFor({ state: "visible", timeout: 5_000 }).catch(() => {});
  }
  // A heading's text is the summary, plus a badge on deprecated operations and on webhooks.
  const heading = page
    .locator("main :is(h1, h2, h3)")
    .filter({ hasText: new RegExp(`^${escapeRegExp(summary)}\\s*(deprecated|webhook)?$`, "i") })
    .first();
  // On a busy machine a click can land while the sidebar redraws and go nowhere: it is tried again.
  for (let attempt = 0; attempt < 2; attempt++) {
    await link.click();
    if (await heading.waitFor({ state: "visible", timeout: 10_000 }).then(() => true, () => false)) return;
  }
  await link.click();
  await heading.waitFor({ state: "visible" });
}
