// Each rule is exercised against a local server that misbehaves on purpose.
import { afterEach, describe, expect, it } from "vitest";
import { RETAINED_ANSWER_LIMIT, retry, retryAfterMs, TimeoutError, type RetryEvent } from "../src/middleware.js";
import { sendJson, startFlakyServer, startServer, type Failure, type LocalServer } from "@api-contracts/dev-tools/testing";
import { createThingsClient, thing } from "./support/things.js";

const internalError = { message: "Internal server error" };
const put = { body: thing };
const fast = { retries: 2, baseDelayMs: 1, maxDelayMs: 50 };

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Answers with `failures` (in order) before it answers 200. */
async function flaky(...failures: Failure[]): Promise<LocalServer> {
  server = await startFlakyServer(thing, failures, (status) => (status === 429 ? { message: "Too many requests" } : internalError));
  return server;
}

describe("retry", () => {
  it("retries 429, 502 and 503 until an answer arrives, sending the same body each time", async () => {
    const s = await flaky(429, 502, 503);
    const client = createThingsClient({ apiKey: "k", baseUrl: s.url, retry: retry({ ...fast, retries: 3 }) });
    const { data, response } = await client.PUT("/v1/things", put);
    expect(response.status).toBe(200);
    expect(data).toEqual(thing);
    expect(s.requests).toHaveLength(4);
    expect(new Set(s.requests.map((r) => r.body))).toEqual(new Set([JSON.stringify(thing)]));
  });

  it("retries a dropped connection", async () => {
    const s = await flaky("drop");
    const client = createThingsClient({ apiKey: "k", baseUrl: s.url, retry: retry(fast) });
    const { response } = await client.GET("/v1/things");
    expect(response.status).toBe(200);
    expect(s.requests).toHaveLength(2);
  });

  it("does not retry 500 or any 4xx", async () => {
    const s = await flaky(500, 500);
    const client = createThingsClient({ apiKey: "k", baseUrl: s.url, retry: retry(fast) });
    const { error, response } = await client.GET("/v1/things");
    expect(response.status).toBe(500);
    expect(error).toEqual(internalError);
    expect(s.requests).toHaveLength(1);
  });

  it("gives up after `retries` extra attempts and returns the last answer", async () => {
    const s = await flaky(503, 503, 503, 503);
    const client = createThingsClient({ apiKey: "k", baseUrl: s.url, retry: retry(fast) });
    const { response } = await client.GET("/v1/things");
    expect(response.status).toBe(503);
    expect(s.requests).toHaveLength(3);
  });

  it("backs off exponentially and waits at least as long as Retry-After asks", async () => {
    server = await startServer((_r, res, attempt) =>
      attempt === 1 ? sendJson(res, 429, {}, { "retry-after": "0.2" }) : attempt === 2 ? sendJson(res, 503, {}) : sendJson(res, 200, thing),
    );
    const events: RetryEvent[] = [];
    const client = createThingsClient({
      apiKey: "k",
      baseUrl: server.url,
      retry: retry({ retries: 3, baseDelayMs: 10, maxDelayMs: 1000, onRetry: (e) => events.push(e) }),
    });
    await client.GET("/v1/things");
    expect(events.map((e) => [e.attempt, e.reason, e.delayMs])).toEqual([
      [1, 429, 200],
      [2, 503, 20],
    ]);
  });

  it("does not retry when Retry-After asks for longer than maxDelayMs", async () => {
    server = await startServer((_r, res) => sendJson(res, 429, {}, { "retry-after": "120" }));
    const client = createThingsClient({ apiKey: "k", baseUrl: server.url, retry: retry(fast) });
    const { response } = await client.GET("/v1/things");
    expect(response.status).toBe(429);
    expect(server.requests).toHaveLength(1);
  });

  it("hands back a retryable answer longer than it holds in memory, whole and without retrying", async () => {
    const long = "x".repeat(RETAINED_ANSWER_LIMIT * 40);
    server = await startServer((_r, res) => sendJson(res, 503, { message: long }));
    const client = createThingsClient({ apiKey: "k", baseUrl: server.url, retry: retry(fast) });
    const { error, response } = await client.GET("/v1/things");
    expect(response.status).toBe(503);
    expect(error).toEqual({ message: long });
    expect(server.requests).toHaveLength(1);
  });

  it("still retries past a retryable answer that fits in memory", async () => {
    const short = "x".repeat(RETAINED_ANSWER_LIMIT - 100);
    server = await startServer((_r, res, attempt) => (attempt === 1 ? sendJson(res, 503, { message: short }) : sendJson(res, 200, thing)));
    const client = createThingsClient({ apiKey: "k", baseUrl: server.url, retry: retry(fast) });
    const { data } = await client.GET("/v1/things");
    expect(data).toEqual(thing);
    expect(server.requests).toHaveLength(2);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(retryAfterMs("3")).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs("soon")).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });

  it("by default repeats idempotent methods and calls with an x-idempotency-key, never a bare POST", async () => {
    const s = await flaky(503, 503, 503);
    const client = createThingsClient({ apiKey: "k", baseUrl: s.url, retry: retry({ ...fast, retries: 1 }) });
    const bare = await client.POST("/v1/things", put);
    const keyed = await client.POST("/v1/things", { ...put, headers: { "x-idempotency-key": "k1" } });
    expect([bare.response.status, keyed.response.status]).toEqual([503, 503]);
    expect(s.requests.map((r) => r.headers["x-idempotency-key"] ?? "none")).toEqual(["none", "k1", "k1"]);
  });

  it("asks the client which calls are safe to repeat", async () => {
    const s = await flaky(503);
    const client = createThingsClient({ apiKey: "k", baseUrl: s.url, retry: retry({ ...fast, isRetrySafe: async (request) => (await request.json()).name === "box" }) });
    const { response } = await client.POST("/v1/things", put);
    expect(response.status).toBe(200);
    expect(s.requests).toHaveLength(2);
  });

  it("is off unless asked for", async () => {
    const s = await flaky(503);
    const client = createThingsClient({ apiKey: "k", baseUrl: s.url });
    const { response } = await client.GET("/v1/things");
    expect(response.status).toBe(503);
    expect(s.requests).toHaveLength(1);
  });
});

describe("timeout", () => {
  it("aborts an attempt that takes longer than timeoutMs with a TimeoutError", async () => {
    const s = await flaky("hang");
    const client = createThingsClient({ apiKey: "k", baseUrl: s.url, timeoutMs: 100 });
    const failure = await client.GET("/v1/things").catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TimeoutError);
    expect(String(failure)).toMatch(/timed out after 100 ms/);
  });

  it("gives each retried attempt its own deadline", async () => {
    const s = await flaky(503, "hang", "hang");
    const client = createThingsClient({ apiKey: "k", baseUrl: s.url, timeoutMs: 100, retry: retry(fast) });
    const { response } = await client.GET("/v1/things");
    // The hung retries time out; the last real answer is what the caller gets.
    expect(response.status).toBe(503);
    expect(s.requests).toHaveLength(2);
  });

  it("a retried attempt's body cut off by the deadline is a TimeoutError too, as the first attempt's is", async () => {
    // First a 503, then a 200 whose body trickles in for longer than the deadline.
    server = await startServer((_request, res, attempt) => {
      if (attempt === 1) return void sendJson(res, 503, internalError);
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"id":');
      setTimeout(() => res.end('"t1"}'), 400).unref();
    });
    const client = createThingsClient({ apiKey: "k", baseUrl: server.url, timeoutMs: 150, retry: retry(fast) });
    const failure = await client.GET("/v1/things").catch((e: unknown) => e);
    expect(server.requests).toHaveLength(2);
    expect(failure).toBeInstanceOf(TimeoutError);
  });

  it("a body read as a stream and cut off by the deadline fails with the TimeoutError too", async () => {
    server = await startServer((_request, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"name":');
      setTimeout(() => res.end('"box"}'), 400).unref();
    });
    const client = createThingsClient({ apiKey: "k", baseUrl: server.url, timeoutMs: 150 });
    const { data } = await client.GET("/v1/things", { parseAs: "stream" });
    const failure = await new Response(data as ReadableStream).text().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TimeoutError);
  });

  it("rejects a timeout that is not a positive number, or longer than setTimeout can wait", () => {
    for (const timeoutMs of [0, -1, Number.NaN, Infinity, 2 ** 31]) expect(() => createThingsClient({ apiKey: "k", timeoutMs })).toThrow(RangeError);
    expect(() => createThingsClient({ apiKey: "k", timeoutMs: 2 ** 31 - 1 })).not.toThrow();
  });
});

describe("createApiClient", () => {
  it("rejects a missing or blank API key at construction, naming the client and the hint", () => {
    expect(() => createThingsClient({ apiKey: undefined })).toThrow(/createThingsClient: apiKey is required \(pass any key\)/);
    expect(() => createThingsClient({ apiKey: " " })).toThrow(TypeError);
  });

  it("refuses a retry that is not a middleware, such as the true or the options of earlier versions", () => {
    expect(() => createThingsClient({ apiKey: "k", retry: true as never })).toThrow(/Middleware must be an object/);
    expect(() => createThingsClient({ apiKey: "k", retry: { retries: 3 } as never })).toThrow(/Middleware must be an object/);
    expect(() => createThingsClient({ apiKey: "k", retry: retry() })).not.toThrow();
  });

  it("refuses at construction a baseUrl that is not an http:// or https:// URL, naming the option", () => {
    // "localhost:5511" parses as a URL of scheme "localhost:"; fetch then fails every call (Node) or
    // reaches the server anyway (Bun).
    for (const baseUrl of ["/api", "localhost:5511", "ftp://x", "127.0.0.1:5511", "file:///tmp", "http://", "https:x"]) {
      expect(() => createThingsClient({ apiKey: "k", baseUrl }), baseUrl).toThrow(new TypeError(`createThingsClient: baseUrl must be an http:// or https:// URL, got "${baseUrl}"`));
    }
    for (const baseUrl of ["http://127.0.0.1:5511", "HTTPS://api.example.com/base/", "http://straße.de"]) expect(() => createThingsClient({ apiKey: "k", baseUrl }), baseUrl).not.toThrow();
  });
});
