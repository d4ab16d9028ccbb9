// Each rule is exercised against a local server that misbehaves on purpose.
import { afterEach, describe, expect, it } from "vitest";
import { createEntitlementsClient, TimeoutError, type RetryEvent } from "../src/index.js";
import { retryAfterMs } from "../src/middleware.js";
import { sendJson, startServer, type Handler, type LocalServer } from "./support/servers.js";

const decision = { allowed: true, customer_id: "cus_1", balance: null, flag: null };
const internalError = { message: "Internal server error", code: "internal_error", env: "live" };
const check = { body: { customer_id: "cus_1", feature_id: "messages" } };
const fast = { retries: 2, baseDelayMs: 1, maxDelayMs: 50 };

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Answers with `failures` (in order) before it answers 200. */
async function flaky(...failures: Array<number | "drop" | "hang">): Promise<LocalServer> {
  const handler: Handler = (_request, res, attempt) => {
    const failure = failures[attempt - 1];
    if (failure === "drop") return res.socket?.destroy();
    if (failure === "hang") return;
    if (failure === undefined) return sendJson(res, 200, decision);
    sendJson(res, failure, failure === 429 ? { message: "Too many requests", code: "rate_limit_exceeded", env: "live" } : internalError);
  };
  server = await startServer(handler);
  return server;
}

describe("retry", () => {
  it("retries 429, 502 and 503 until an answer arrives", async () => {
    const s = await flaky(429, 502, 503);
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, retry: { ...fast, retries: 3 } });
    const { data, response } = await client.POST("/v1/balances.check", check);
    expect(response.status).toBe(200);
    expect(data?.allowed).toBe(true);
    expect(s.requests).toHaveLength(4);
    expect(new Set(s.requests.map((r) => r.body))).toEqual(new Set([JSON.stringify(check.body)]));
  });

  it("retries a dropped connection", async () => {
    const s = await flaky("drop");
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, retry: fast });
    const { response } = await client.POST("/v1/balances.check", check);
    expect(response.status).toBe(200);
    expect(s.requests).toHaveLength(2);
  });

  it("does not retry 500 or any 4xx", async () => {
    const s = await flaky(500, 500);
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, retry: fast });
    const { error, response } = await client.POST("/v1/balances.check", check);
    expect(response.status).toBe(500);
    expect(error).toEqual(internalError);
    expect(s.requests).toHaveLength(1);
  });

  it("gives up after `retries` extra attempts and returns the last answer", async () => {
    const s = await flaky(503, 503, 503, 503);
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, retry: fast });
    const { response } = await client.POST("/v1/balances.check", check);
    expect(response.status).toBe(503);
    expect(s.requests).toHaveLength(3);
  });

  it("backs off exponentially and waits at least as long as Retry-After asks", async () => {
    server = await startServer((_r, res, attempt) =>
      attempt === 1 ? sendJson(res, 429, {}, { "retry-after": "0.2" }) : attempt === 2 ? sendJson(res, 503, {}) : sendJson(res, 200, decision),
    );
    const events: RetryEvent[] = [];
    const client = createEntitlementsClient({
      apiKey: "am_sk_test",
      baseUrl: server.url,
      retry: { retries: 3, baseDelayMs: 10, maxDelayMs: 1000, onRetry: (e) => events.push(e) },
    });
    await client.POST("/v1/balances.check", check);
    expect(events.map((e) => [e.attempt, e.reason, e.delayMs])).toEqual([
      [1, 429, 200],
      [2, 503, 20],
    ]);
  });

  it("does not retry when Retry-After asks for longer than maxDelayMs", async () => {
    server = await startServer((_r, res) => sendJson(res, 429, {}, { "retry-after": "120" }));
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: server.url, retry: fast });
    const { response } = await client.POST("/v1/balances.check", check);
    expect(response.status).toBe(429);
    expect(server.requests).toHaveLength(1);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(retryAfterMs("3")).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs("soon")).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });

  it("never repeats a track without idempotency_key, nor a check that sends an event or locks", async () => {
    const s = await flaky(503, 503, 503, 503, 503, 503);
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, retry: fast });
    await client.POST("/v1/balances.track", { body: { customer_id: "cus_1", feature_id: "messages" } });
    await client.POST("/v1/balances.check", { body: { ...check.body, send_event: true } });
    await client.POST("/v1/balances.check", { body: { ...check.body, lock: { enabled: true, lock_id: "l1" } } });
    await client.POST("/v1/balances.finalize", { body: { lock_id: "l1", action: "confirm" } });
    expect(s.requests).toHaveLength(4);
  });

  it("repeats a track that carries an idempotency_key", async () => {
    const s = await flaky(503);
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, retry: fast });
    await client.POST("/v1/balances.track", { body: { customer_id: "cus_1", feature_id: "messages", idempotency_key: "k1" } });
    expect(s.requests).toHaveLength(2);
  });

  it("is off unless asked for", async () => {
    const s = await flaky(503);
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url });
    const { response } = await client.POST("/v1/balances.check", check);
    expect(response.status).toBe(503);
    expect(s.requests).toHaveLength(1);
  });
});

describe("timeout", () => {
  it("aborts an attempt that takes longer than timeoutMs with a TimeoutError", async () => {
    const s = await flaky("hang");
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, timeoutMs: 100 });
    const failure = await client.POST("/v1/balances.check", check).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TimeoutError);
    expect(String(failure)).toMatch(/timed out after 100 ms/);
  });

  it("gives each retried attempt its own deadline", async () => {
    const s = await flaky(503, "hang", "hang");
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, timeoutMs: 100, retry: fast });
    const { response } = await client.POST("/v1/balances.check", check);
    // The hung retries time out; the last real answer is what the caller gets.
    expect(response.status).toBe(503);
    expect(s.requests).toHaveLength(2);
  });

  it("rejects a timeout that is not a positive number", () => {
    expect(() => createEntitlementsClient({ apiKey: "am_sk_test", timeoutMs: 0 })).toThrow(RangeError);
  });
});

describe("failOpen", () => {
  it("answers a check with allowed: true and says so when the service fails with a 5xx", async () => {
    const s = await flaky(500);
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, failOpen: true });
    const { data, error, response } = await client.POST("/v1/balances.check", { body: { customer_id: "cus_9", feature_id: "messages", entity_id: "e1" } });
    expect(error).toBeUndefined();
    expect(response.status).toBe(202);
    expect(response.headers.get("x-fail-open")).toBe("status 500");
    expect(data).toEqual({ allowed: true, customer_id: "cus_9", entity_id: "e1", balance: null, flag: null });
  });

  it("answers a check with allowed: true on a network error or a timeout", async () => {
    const s = await flaky("drop", "hang");
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, failOpen: true, timeoutMs: 100 });
    const dropped = await client.POST("/v1/check", check);
    const hung = await client.POST("/v1/balances.check", check);
    expect([dropped.data?.allowed, dropped.response.headers.get("x-fail-open")]).toEqual([true, "network error"]);
    expect([hung.data?.allowed, hung.response.headers.get("x-fail-open")]).toEqual([true, "timeout"]);
  });

  it("fails open only after retries are spent", async () => {
    const s = await flaky(503, 503);
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, failOpen: true, retry: { ...fast, retries: 1 } });
    const { response } = await client.POST("/v1/balances.check", check);
    expect(response.status).toBe(202);
    expect(s.requests).toHaveLength(2);
  });

  it("leaves 4xx answers and other operations alone", async () => {
    const s = await flaky(401, 500);
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, failOpen: true });
    const denied = await client.POST("/v1/balances.check", check);
    const track = await client.POST("/v1/balances.track", { body: { customer_id: "cus_1", feature_id: "messages" } });
    expect(denied.response.status).toBe(401);
    expect(track.response.status).toBe(500);
    expect(track.error).toEqual(internalError);
  });
});
