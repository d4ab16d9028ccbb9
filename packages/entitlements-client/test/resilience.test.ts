// The entitlements rules on top of the shared retry and timeout (tested in client-runtime), each
// exercised against a local server that misbehaves on purpose.
import { afterEach, describe, expect, it } from "vitest";
import { createEntitlementsClient } from "../src/index.js";
import { failOpen, retry } from "../src/middleware.js";
import { startFlakyServer, type Failure, type LocalServer } from "@api-contracts/dev-tools/testing";

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
async function flaky(...failures: Failure[]): Promise<LocalServer> {
  server = await startFlakyServer(decision, failures, (status) =>
    status === 429 ? { message: "Too many requests", code: "rate_limit_exceeded", env: "live" } : internalError,
  );
  return server;
}

describe("retry safety", () => {
  it("a check is retried: it only reads", async () => {
    const s = await flaky(429, 502, 503);
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, retry: retry({ ...fast, retries: 3 }) });
    const { data, response } = await client.POST("/v1/balances.check", check);
    expect(response.status).toBe(200);
    expect(data?.allowed).toBe(true);
    expect(s.requests).toHaveLength(4);
    expect(new Set(s.requests.map((r) => r.body))).toEqual(new Set([JSON.stringify(check.body)]));
  });







  it("never repeats a track without idempotency_key, nor a check that sends an event or locks", async () => {
    const s = await flaky(503, 503, 503, 503, 503, 503);
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, retry: retry(fast) });
    await client.POST("/v1/balances.track", { body: { customer_id: "cus_1", feature_id: "messages" } });
    await client.POST("/v1/balances.check", { body: { ...check.body, send_event: true } });
    await client.POST("/v1/balances.check", { body: { ...check.body, lock: { enabled: true, lock_id: "l1" } } });
    await client.POST("/v1/balances.finalize", { body: { lock_id: "l1", action: "confirm" } });
    expect(s.requests).toHaveLength(4);
  });

  it("repeats a track that carries an idempotency_key", async () => {
    const s = await flaky(503);
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, retry: retry(fast) });
    await client.POST("/v1/balances.track", { body: { customer_id: "cus_1", feature_id: "messages", idempotency_key: "k1" } });
    expect(s.requests).toHaveLength(2);
  });

});


describe("failOpen", () => {
  it("answers a check with allowed: true and says so when the service fails with a 5xx", async () => {
    const s = await flaky(500);
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, failOpen: failOpen() });
    const { data, error, response } = await client.POST("/v1/balances.check", { body: { customer_id: "cus_9", feature_id: "messages", entity_id: "e1" } });
    expect(error).toBeUndefined();
    expect(response.status).toBe(202);
    expect(response.headers.get("x-fail-open")).toBe("status 500");
    expect(data).toEqual({ allowed: true, customer_id: "cus_9", entity_id: "e1", balance: null, flag: null });
  });

  it("answers a check with allowed: true on a network error or a timeout", async () => {
    const s = await flaky("drop", "hang");
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, failOpen: failOpen(), timeoutMs: 100 });
    const dropped = await client.POST("/v1/check", check);
    const hung = await client.POST("/v1/balances.check", check);
    expect([dropped.data?.allowed, dropped.response.headers.get("x-fail-open")]).toEqual([true, "network error"]);
    expect([hung.data?.allowed, hung.response.headers.get("x-fail-open")]).toEqual([true, "timeout"]);
  });

  it("answers a check locally on Bun's network errors too (a plain Error with a code), but not on an abort", async () => {
    const failing = (error: unknown) => () => Promise.reject(error);
    const bunRefused = Object.assign(new Error("Unable to connect. Is the computer able to access the url?"), { code: "ConnectionRefused" });
    const bunReset = Object.assign(new Error("The socket connection was closed unexpectedly."), { code: "ECONNRESET" });
    for (const error of [bunRefused, bunReset]) {
      const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: "http://127.0.0.1:9", failOpen: failOpen(), fetch: failing(error) });
      const { data, response } = await client.POST("/v1/balances.check", check);
      expect([data?.allowed, response.headers.get("x-fail-open")]).toEqual([true, "network error"]);
    }
    const abort = new DOMException("This operation was aborted", "AbortError");
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: "http://127.0.0.1:9", failOpen: failOpen(), fetch: failing(abort) });
    await expect(client.POST("/v1/balances.check", check)).rejects.toBe(abort);
  });

  it("answers a check locally when the service is rate limited (429), after retries", async () => {
    const s = await flaky(429, 429);
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, failOpen: failOpen(), retry: retry({ ...fast, retries: 1 }) });
    const { data, response } = await client.POST("/v1/balances.check", check);
    expect([response.status, response.headers.get("x-fail-open"), data?.allowed]).toEqual([202, "status 429", true]);
    expect(s.requests).toHaveLength(2);
  });

  it("never answers for a request fetch refuses to send: the error reaches the caller", async () => {
    // A per-call baseUrl is not checked at construction; Node's fetch refuses its scheme.
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: "http://127.0.0.1:9", failOpen: failOpen(), retry: retry(fast) });
    await expect(client.POST("/v1/balances.check", { ...check, baseUrl: "ftp://x" })).rejects.toThrow(TypeError);
    const refusals = [
      Object.assign(new TypeError("protocol must be http:, https: or s3:"), { code: "ERR_INVALID_ARG_VALUE" }), // Bun's, for ftp:
      new TypeError("Cannot read properties of undefined (reading 'headers')"), // a bug in a fetch of the caller's
    ];
    for (const refusal of refusals) {
      const refusing = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: "http://127.0.0.1:9", failOpen: failOpen(), fetch: () => Promise.reject(refusal) });
      await expect(refusing.POST("/v1/balances.check", check)).rejects.toBe(refusal);
    }
  });

  it("fails open only after retries are spent", async () => {
    const s = await flaky(503, 503);
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, failOpen: failOpen(), retry: retry({ ...fast, retries: 1 }) });
    const { response } = await client.POST("/v1/balances.check", check);
    expect(response.status).toBe(202);
    expect(s.requests).toHaveLength(2);
  });

  it("leaves 4xx answers and other operations alone", async () => {
    const s = await flaky(401, 500);
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: s.url, failOpen: failOpen() });
    const denied = await client.POST("/v1/balances.check", check);
    const track = await client.POST("/v1/balances.track", { body: { customer_id: "cus_1", feature_id: "messages" } });
    expect(denied.response.status).toBe(401);
    expect(track.response.status).toBe(500);
    expect(track.error).toEqual(internalError);
  });
});
