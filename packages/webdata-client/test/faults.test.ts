// The client's resilience options against the mock with faults injected: timeout and retry shown
// kept with the option on and broken with it off. The live service sends no Retry-After with its
// 503; the rule adds one (retryAfter) to show the client waits as long as it is asked.
import { afterEach, describe, expect, it } from "vitest";
import { parseFaults, type FaultRule } from "@api-contracts/contract-core";
import { seedFor, type FaultEvent } from "@api-contracts/contract-core/server";
import { startMockServer, type RunningServer } from "@api-contracts/mock-server";
import { createWebdataClient, TimeoutError, type WebdataClientOptions } from "../src/index.js";
import { retry } from "../src/middleware.js";

/** The mock's own deadline for a request nobody answers: what a hang ends at when the client waits. */
const SERVER_DEADLINE_MS = 1500;
const TIMEOUT_MS = 300;
const fast = { retries: 2, baseDelayMs: 1, maxDelayMs: 5000 };

let mock: RunningServer | undefined;
let events: FaultEvent[] = [];
afterEach(async () => {
  await mock?.close();
  mock = undefined;
  events = [];
});

/** A mock with these rules; `pattern` picks the seed (see seedFor) for the token-usage reads, e.g. `[true, false]`. */
async function mockWith(rules: FaultRule[], pattern?: boolean[]): Promise<string> {
  const checked = parseFaults({ rules });
  const seed = pattern ? seedFor(checked, "webdata", "getTokenUsage", pattern) : 0;
  mock = await startMockServer({ service: "webdata", requestTimeout: SERVER_DEADLINE_MS, faults: { rules: checked, seed, onFault: (event) => events.push(event) } });
  return mock.url;
}

const client = (baseUrl: string, options: Partial<WebdataClientOptions> = {}) => createWebdataClient({ apiKey: "fc-0123456789abcdef0123456789abcdef", baseUrl, ...options });

describe("timeoutMs against a mock that hangs", () => {
  it("on: the call fails with a TimeoutError at timeoutMs, long before the server gives up", async () => {
    const url = await mockWith([{ operation: "getTokenUsage", fault: "hang" }]);
    const started = Date.now();
    await expect(client(url, { timeoutMs: TIMEOUT_MS }).GET("/v2/team/token-usage")).rejects.toBeInstanceOf(TimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(Date.now() - started).toBeLessThan(SERVER_DEADLINE_MS);
  });

  it("on: a body that trickles in slower than timeoutMs is cut off too, at timeoutMs", async () => {
    const url = await mockWith([{ operation: "getTokenUsage", fault: "slow-body" }]);
    const started = Date.now();
    // The body is read after the middleware has seen the headers: the deadline still covers it, and
    // still ends the call with the client's own TimeoutError.
    await expect(client(url, { timeoutMs: TIMEOUT_MS }).GET("/v2/team/token-usage")).rejects.toBeInstanceOf(TimeoutError);
    expect(Date.now() - started).toBeLessThan(SERVER_DEADLINE_MS);
  });

  it("off: the call waits until the server closes the connection at its own deadline", async () => {
    const url = await mockWith([{ operation: "getTokenUsage", fault: "hang" }]);
    const started = Date.now();
    await expect(client(url).GET("/v2/team/token-usage")).rejects.toBeInstanceOf(TypeError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(SERVER_DEADLINE_MS - 50);
  });
});

describe("retry against a mock that resets or is briefly unavailable", () => {
  it("on: a read whose first attempt is reset is answered by the second", async () => {
    const url = await mockWith([{ operation: "getTokenUsage", probability: 0.5, fault: "reset" }], [true, false]);
    const { data, response } = await client(url, { retry: retry(fast) }).GET("/v2/team/token-usage");
    expect(response.status).toBe(200);
    expect(data?.success).toBe(true);
    expect(events.map((e) => e.fault)).toEqual(["reset"]);
  });

  it("off: the reset reaches the caller", async () => {
    const url = await mockWith([{ operation: "getTokenUsage", probability: 0.5, fault: "reset" }], [true, false]);
    await expect(client(url).GET("/v2/team/token-usage")).rejects.toBeInstanceOf(TypeError);
  });

  it("on: after a 503 with Retry-After: 1 the read is sent again no sooner than a second later, and answered", async () => {
    const url = await mockWith([{ operation: "getTokenUsage", probability: 0.5, status: 503, retryAfter: 1 }], [true, false]);
    const waits: number[] = [];
    const started = Date.now();
    const { response } = await client(url, { retry: retry({ ...fast, onRetry: (event) => waits.push(event.delayMs) }) }).GET("/v2/team/token-usage");
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(waits).toEqual([1000]);
  });

  it("off: the 503 reaches the caller in the documented shape", async () => {
    const url = await mockWith([{ operation: "getTokenUsage", probability: 0.5, status: 503, retryAfter: 1 }], [true, false]);
    const { error, response } = await client(url).GET("/v2/team/token-usage");
    expect(response.status).toBe(503);
    expect(error).toEqual({ success: false, error: "OAuth authentication is temporarily unavailable" });
  });

  it("a crawl without an x-idempotency-key is never sent twice, even with retry on", async () => {
    const url = await mockWith([{ operation: "startCrawl", status: 503 } satisfies FaultRule]);
    const { response } = await client(url, { retry: retry(fast) }).POST("/v2/crawl", { body: { url: "https://example.com" } });
    expect(response.status).toBe(503);
    expect(events).toHaveLength(1);
  });
});
