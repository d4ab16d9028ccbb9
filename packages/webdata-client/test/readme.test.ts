import { createHmac } from "node:crypto";
import { expect, inject, it } from "vitest";
import { WEBDATA_BASE_URL } from "../src/index.js";
import { loadBundle, runReadmeExample, runReadmeServer, specExample } from "@api-contracts/dev-tools/testing";

it("the README example compiles and prints the id of the started crawl (here: the mock server's example)", async () => {
  const { diagnostics, stdout } = await runReadmeExample(WEBDATA_BASE_URL, inject("mockUrl"), { FIRECRAWL_API_KEY: "fc-test" });
  expect(diagnostics).toEqual([]);
  // The mock refuses a call without a well-formed bearer token, so a printed id also shows the key was sent.
  const example = specExample(loadBundle("webdata"), "POST", "/v2/crawl").body as { id: string };
  expect(stdout.trim()).toBe(`crawl started: ${example.id}`);
}, 120_000);

it("the README's retry example compiles and, against the mock, prints the id of the started crawl", async () => {
  const { diagnostics, stdout } = await runReadmeExample(WEBDATA_BASE_URL, inject("mockUrl"), { FIRECRAWL_API_KEY: "fc-test" }, "Retries");
  expect(diagnostics).toEqual([]);
  const example = specExample(loadBundle("webdata"), "POST", "/v2/crawl").body as { id: string };
  expect(stdout.trim()).toBe(example.id);
}, 120_000);

it("the README's webhook receiver compiles, prints the page of a signed call and refuses a forged one with 401", async () => {
  const bundle = loadBundle("webdata") as any;
  const body = JSON.stringify(bundle.components.examples["crawlPage-scraped"].value);
  const secret = "team-secret";
  const signature = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
  const { diagnostics, result, stdout } = await runReadmeServer("Receive webhooks", { FIRECRAWL_WEBHOOK_SECRET: secret }, async (url) => {
    const post = (text: string) => fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-firecrawl-signature": signature }, body: text });
    const signed = await post(body);
    const forged = await post(body.replace("Pro: $39", "Pro: $0"));
    return { signed: signed.status, forged: forged.status, reason: await forged.text() };
  });
  expect(diagnostics).toEqual([]);
  expect(result).toEqual({ signed: 204, forged: 401, reason: "invalid_signature" });
  expect(stdout.trim()).toBe("page: https://blog.example.com/pricing");
}, 120_000);
