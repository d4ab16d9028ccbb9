import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { installPacked, packedFiles, type Consumer } from "../../entitlements-client/test/support/consumer.js";
import { loadBundle, specExample } from "../../entitlements-client/test/support/servers.js";

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

let consumer: Consumer;
beforeAll(() => {
  // The web data client depends on the entitlements client's middleware, so both tarballs go in.
  consumer = installPacked(["entitlements-client", "webdata-client"]);
}, 180_000);
afterAll(() => consumer?.remove());

it("the tarball holds the build and its types, not sources or tests", () => {
  const files = packedFiles("webdata-client");
  expect(files).toEqual(expect.arrayContaining(["dist/index.js", "dist/index.d.ts", "dist/generated/webdata.d.ts", "package.json", "README.md"]));
  expect(files.filter((f) => !f.startsWith("dist/") && !["package.json", "README.md"].includes(f))).toEqual([]);
});

it("a fresh project that installs the tarball type-checks a program against it and runs it against the mock server", async () => {
  expect(consumer.compile(program)).toEqual([]);
  const output = JSON.parse(await consumer.run({ BASE_URL: inject("mockUrl") })) as Record<string, unknown>;
  const notFound = specExample(loadBundle("webdata"), "GET", "/v2/monitor/x", "404").body as { error: string };
  // The mock validates requests too: the crawl without url gets the documented 400.
  expect(output).toEqual({ id: "string", tokens: "number", status: 404, error: notFound.error, invalid: 400 });
}, 120_000);
