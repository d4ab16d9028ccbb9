import { afterEach, describe, expect, inject, it } from "vitest";
import { createWebdataClient, TimeoutError, WEBDATA_BASE_URL, type CrawlStarted, type Monitor } from "../src/index.js";
import { retry } from "../src/middleware.js";
import { loadBundle, sendJson, specExample, startServer, type LocalServer } from "@api-contracts/dev-tools/testing";

const bundle = loadBundle("webdata");
const crawlId = "2f0e4d2c-6a3b-4b8e-9c1d-0a1b2c3d4e5f";
const mockUrl = inject("mockUrl");

describe("createWebdataClient", () => {
  it("rejects a missing API key at construction", () => {
    expect(() => createWebdataClient({ apiKey: undefined })).toThrow(/createWebdataClient: apiKey is required/);
  });

  it("refuses at construction a baseUrl that is not an http:// or https:// URL", () => {
    for (const baseUrl of ["localhost:3002", "ftp://x"]) {
      expect(() => createWebdataClient({ apiKey: "fc-test", baseUrl }), baseUrl).toThrow(`createWebdataClient: baseUrl must be an http:// or https:// URL, got "${baseUrl}"`);
    }
  });

  it("talks to the live service unless baseUrl says otherwise, with the key as a bearer token", async () => {
    const seen: Request[] = [];
    const client = createWebdataClient({
      apiKey: "fc-test",
      fetch: async (request) => {
        seen.push(request);
        return new Response("{}", { status: 200, headers: { "content-type": "application/json" } });
      },
    });
    await client.GET("/v2/team/token-usage");
    expect(seen.map((r) => [r.url, r.headers.get("authorization")])).toEqual([[`${WEBDATA_BASE_URL}/v2/team/token-usage`, "Bearer fc-test"]]);
  });

  it("crawl: returns the documented answer as typed data", async () => {
    const client = createWebdataClient({ apiKey: "fc-test", baseUrl: mockUrl });
    const { data, error } = await client.POST("/v2/crawl", { body: { url: "https://example.com", limit: 5 } });
    expect(error).toBeUndefined();
    const started: CrawlStarted | undefined = data;
    expect(started).toEqual(specExample(bundle, "POST", "/v2/crawl").body);
  });

  it("path and query parameters are filled in from params", async () => {
    const client = createWebdataClient({ apiKey: "fc-test", baseUrl: mockUrl });
    const monitor = await client.GET("/v2/monitor/{monitorId}", { params: { path: { monitorId: crawlId } } });
    const usage = await client.GET("/v2/team/credit-usage/historical", { params: { query: { byApiKey: true } } });
    const found: Monitor | undefined = monitor.data?.data;
    expect(found).toBeDefined();
    expect(usage.response.status).toBe(200);
    expect([monitor.response.url, usage.response.url]).toEqual([`${mockUrl}/v2/monitor/${crawlId}`, `${mockUrl}/v2/team/credit-usage/historical?byApiKey=true`]);
  });

  it("errors come back in the documented error shape, not as exceptions", async () => {
    const client = createWebdataClient({ apiKey: "fc-test", baseUrl: mockUrl });
    const { data, error, response } = await client.DELETE("/v2/crawl/{id}", { params: { path: { id: crawlId } }, headers: { Prefer: "code=404" } });
    expect(data).toBeUndefined();
    expect(response.status).toBe(404);
    expect(error).toEqual(specExample(bundle, "DELETE", `/v2/crawl/${crawlId}`, "404").body);
  });
});

describe("retry and timeout", () => {
  let server: LocalServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const fast = { retries: 2, baseDelayMs: 1, maxDelayMs: 50 };
  const unavailableTwice = () =>
    startServer((_r, res, attempt) => (attempt <= 2 ? sendJson(res, 503, { success: false, error: "Service unavailable" }) : sendJson(res, 200, { success: true, id: crawlId, url: "u" })));

  it("a crawl is repeated only when it carries an x-idempotency-key", async () => {
    server = await unavailableTwice();
    const client = createWebdataClient({ apiKey: "fc-test", baseUrl: server.url, retry: retry(fast) });
    const unkeyed = await client.POST("/v2/crawl", { body: { url: "https://example.com" } });
    const keyed = await client.POST("/v2/crawl", { body: { url: "https://example.com" }, params: { header: { "x-idempotency-key": crawlId } } });
    expect([unkeyed.response.status, keyed.response.status]).toEqual([503, 200]);
    expect(server.requests.map((r) => r.headers["x-idempotency-key"] ?? "none")).toEqual(["none", crawlId, crawlId]);
  });

  it("reads and cancellations are repeated", async () => {
    server = await unavailableTwice();
    const client = createWebdataClient({ apiKey: "fc-test", baseUrl: server.url, retry: retry(fast) });
    const usage = await client.GET("/v2/team/token-usage");
    const cancel = await client.DELETE("/v2/crawl/{id}", { params: { path: { id: crawlId } } });
    expect([usage.response.status, cancel.response.status]).toEqual([200, 200]);
    expect(server.requests).toHaveLength(4);
  });

  it("a call that hangs ends with a TimeoutError", async () => {
    server = await startServer(() => undefined);
    const client = createWebdataClient({ apiKey: "fc-test", baseUrl: server.url, timeoutMs: 100 });
    await expect(client.GET("/v2/interact", { params: { query: { status: "active" } } })).rejects.toBeInstanceOf(TimeoutError);
  });
});
