import { createHmac } from "node:crypto";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { readFileSync } from "node:fs";
import { filesReachedFromExports, installedPackages, installPacked, loadBundle, packedFiles, specExample, verifyWebhookWhereUsersAre, type Consumer } from "@api-contracts/dev-tools/testing";

const program = `
import { createWebdataClient, type CrawlStarted, type TokenUsage } from "@api-contracts/webdata-client";

const client = createWebdataClient({ apiKey: "fc-test", baseUrl: process.env.BASE_URL, retry: true, timeoutMs: 5000 });
const crawl = await client.POST("/v2/crawl", { body: { url: "https://example.com" } });
const started: CrawlStarted | undefined = crawl.data;
const usage = await client.GET("/v2/team/token-usage");
const tokens: TokenUsage | undefined = usage.data?.data;
const missing = await client.GET("/v2/monitor/{monitorId}", {
  params: { path: { monitorId: "2f0e4d2c-6a3b-4b8e-9c1d-0a1b2c3d4e5f" } },
  headers: { Prefer: "code=404" },
});
// @ts-expect-error -- the installed types reject a crawl without url
const invalid = await client.POST("/v2/crawl", { body: {} });
console.log(JSON.stringify({ id: typeof started?.id, tokens: typeof tokens?.remainingTokens, status: missing.response.status, error: missing.error?.error, invalid: invalid.response.status }));
`;

const PACKAGE = "@api-contracts/webdata-client";
// A receiver in a fresh project: Firecrawl's own test vector, then the same body tampered with.
const receiver = `
import { verifyWebhook, WebhookVerificationError, type WebdataWebhookEvent } from "@api-contracts/webdata-client";

const body = '{"success":true,"type":"crawl.page","id":"crawl-123","webhookId":"webhook-123","data":[]}';
const headers = { "x-firecrawl-signature": "sha256=29729c39fd5f57c6f4d50c86dd20256a5d77b7b39d19531c17805163fb830d40" };
const event: WebdataWebhookEvent = await verifyWebhook(body, headers, "secret");
const refused = await verifyWebhook(body.replace("123", "124"), headers, "secret").catch((error: unknown) => error instanceof WebhookVerificationError ? error.reason : "other");
console.log(JSON.stringify({ type: event.type, refused }));
`;
const expected = { type: "crawl.page", refused: "invalid_signature" };
const webType = "crawl.started";
const webArguments = () => {
  const body = '{"success":true,"type":"crawl.started","id":"a","webhookId":"b","data":[]}';
  return [new TextEncoder().encode(body), new Headers({ "x-firecrawl-signature": `sha256=${createHmac("sha256", "s").update(body).digest("hex")}` }), "s"];
};

let consumer: Consumer;
beforeAll(() => {
  consumer = installPacked();
}, 180_000);
afterAll(() => consumer?.remove());

it("the tarball holds exactly the files its exports reach, none from another package's folder", () => {
  expect(packedFiles()).toEqual(filesReachedFromExports());
});

it("installs from its tarball and the runtime's, without the network", () => {
  expect(installedPackages(consumer)).toEqual(["client-runtime", "webdata-client"]);
  expect(consumer.tarballs.slice(0, 2)).toEqual(["api-contracts-webdata-client-0.1.0.tgz", "api-contracts-client-runtime-0.1.0.tgz"]);
});

it("the README's install line names the tarballs a project needs", () => {
  const install = /^npm install (\.\/.+)$/m.exec(readFileSync("README.md", "utf8"))?.[1]?.split(" ").map((file) => file.replace(/^\.\//, ""));
  expect(install?.sort()).toEqual(consumer.tarballs.filter((file) => file.startsWith("api-contracts-")).sort());
});

it("a fresh project that installs the tarball type-checks a program against it and runs it against the mock server", async () => {
  expect(consumer.compile(program)).toEqual([]);
  const output = JSON.parse(await consumer.run({ BASE_URL: inject("mockUrl") })) as Record<string, unknown>;
  const notFound = specExample(loadBundle("webdata"), "GET", "/v2/monitor/x", "404").body as { error: string };
  // The mock validates requests too: the crawl without url gets the documented 400.
  expect(output).toEqual({ id: "string", tokens: "number", status: 404, error: notFound.error, invalid: 400 });
}, 120_000);

it("in the installed package, verifyWebhook works from a Node program and bundled for a runtime with only web-standard globals", async () => {
  const { diagnostics, printed, web } = await verifyWebhookWhereUsersAre(consumer, PACKAGE, receiver, webArguments());
  expect(diagnostics).toEqual([]);
  expect(printed).toEqual(expected);
  expect(web).toMatchObject({ type: webType });
}, 120_000);
