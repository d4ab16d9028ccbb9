import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBundle } from "@api-contracts/contract-core";
import { startMockServer, type RunningServer } from "../src/index.js";
import { documentedErrorValidator, documentedExamples, post, send } from "./support.js";

const webKey = { authorization: "Bearer fc-0123456789abcdef0123456789abcdef" };
const autumnKey = { authorization: "Bearer am_sk_test_0123456789" };
const crawlId = "3c9ba5a4-2b7e-4a59-a3b9-9d4d0f6a1b2c";
const check = { customer_id: "cus_123", feature_id: "messages" };

let web: RunningServer;
let ent: RunningServer;
const isWebError = documentedErrorValidator("webdata");
const isEntError = documentedErrorValidator("entitlements");

beforeAll(async () => {
  [web, ent] = await Promise.all([startMockServer({ service: "webdata" }), startMockServer({ service: "entitlements" })]);
});
afterAll(async () => {
  await Promise.all([web?.close(), ent?.close()]);
});

describe("startMockServer", () => {
  it("listens on 127.0.0.1 with a free port when none is given", () => {
    expect(web.url).toBe(`http://127.0.0.1:${web.port}`);
    expect(ent.port).not.toBe(web.port);
  });

  it("serves the first documented example of the lowest 2xx response by default", async () => {
    const reply = await post(ent.url, "/v1/balances.check", check, autumnKey);
    expect(reply.status).toBe(200);
    const examples = documentedExamples("entitlements", "/v1/balances.check", "post");
    const first = [...examples.values()].find((x) => x.status === 200);
    expect(reply.json).toEqual(first?.value);
  });

  it("close() stops the server", async () => {
    const extra = await startMockServer({ service: "webdata" });
    await extra.close();
    await expect(send(extra.url, { method: "GET", path: "/v2/team/token-usage", headers: webKey })).rejects.toThrow();
  });
});

describe("authentication", () => {
  it("webdata: no Authorization header is 401 'Unauthorized'", async () => {
    const reply = await post(web.url, "/v2/crawl", { url: "https://example.com" });
    expect(reply.status).toBe(401);
    expect(reply.json).toEqual({ success: false, error: "Unauthorized" });
  });

  it("webdata: 'Bearer' without a token is 401 'Unauthorized: Token missing'", async () => {
    const reply = await post(web.url, "/v2/crawl", { url: "https://example.com" }, { authorization: "Bearer " });
    expect(reply.status).toBe(401);
    expect(reply.json).toEqual({ success: false, error: "Unauthorized: Token missing" });
  });

  it("webdata: the key is the header's second word, whatever the scheme, as Firecrawl reads it; a mock knows no keys, so only a missing one is refused", async () => {
    for (const authorization of ["Basic Zm9vOmJhcg==", "Bearer two tokens", "Bearer !!!"]) {
      const reply = await send(web.url, { method: "GET", path: "/v2/team/token-usage", headers: { authorization } });
      expect(reply.status, authorization).toBe(200);
    }
    for (const authorization of ["fc-123", "Bearer", "Bearer  fc-123"]) {
      const reply = await send(web.url, { method: "GET", path: "/v2/team/token-usage", headers: { authorization } });
      expect(reply.status, authorization).toBe(401);
      expect(reply.json).toEqual({ success: false, error: "Unauthorized: Token missing" });
    }
  });

  it("entitlements: no bearer token is 401 no_secret_key", async () => {
    for (const headers of [{}, { authorization: "Bearer" }] as Array<Record<string, string>>) {
      const reply = await post(ent.url, "/v1/balances.check", check, headers);
      expect(reply.status).toBe(401);
      expect(reply.json).toMatchObject({ code: "no_secret_key" });
      expect(isEntError(reply.json)).toBe(true);
    }
  });

  it("entitlements: a header that is not `Bearer ` and a key is no key, and a key without am_sk is refused for its prefix, as Autumn reads them", async () => {
    const none = await post(ent.url, "/v1/balances.track", check, { authorization: "Token am_sk_1" });
    expect(none.status).toBe(401);
    expect(none.json).toMatchObject({ code: "no_secret_key" });
    const prefixed = await post(ent.url, "/v1/balances.track", check, { authorization: "Bearer sk_1" });
    expect(prefixed.status).toBe(401);
    expect(prefixed.json).toMatchObject({ code: "invalid_request" });
    expect(isEntError(prefixed.json)).toBe(true);
  });
});

describe("request validation", () => {
  it("webdata: an invalid body is 400 BAD_REQUEST whose details name each offending member", async () => {
    const reply = await post(web.url, "/v2/crawl", { limit: "ten" }, webKey);
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ success: false, code: "BAD_REQUEST", error: "Bad Request" });
    const paths = (reply.json as { details: Array<{ path: string[] }> }).details.map((d) => d.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["url", "limit"]));
    expect(isWebError(reply.json)).toBe(true);
  });

  it("webdata: an unknown body member is 400 with the documented 'Unrecognized key' error and its key", async () => {
    const reply = await post(web.url, "/v2/crawl", { url: "https://example.com", cache: true }, webKey);
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({
      code: "BAD_REQUEST",
      error: expect.stringMatching(/^Unrecognized key in body/),
      details: [{ code: "unrecognized_keys", keys: ["cache"] }],
    });
    expect(isWebError(reply.json)).toBe(true);
  });

  it("webdata: malformed JSON is 400 BAD_REQUEST_INVALID_JSON", async () => {
    const reply = await send(web.url, {
      method: "POST",
      path: "/v2/crawl",
      headers: { ...webKey, "content-type": "application/json" },
      body: '{"url": "https://example.com"',
    });
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ success: false, code: "BAD_REQUEST_INVALID_JSON", error: "Bad request, malformed JSON" });
  });

  it("webdata: a body over the API's limits.bodyBytes (10 MiB) is 413 'Request body is too large'", async () => {
    const headers = { ...webKey, "content-type": "application/json" };
    const reply = await send(web.url, { method: "POST", path: "/v2/crawl", headers, body: Buffer.alloc(10 * 1024 * 1024 + 1, 0x20) });
    expect(reply.status).toBe(413);
    expect(reply.json).toEqual({ success: false, error: "Request body is too large" });
    const within = await send(web.url, { method: "POST", path: "/v2/crawl", headers, body: `${" ".repeat(2 * 1024 * 1024)}{"url":"https://example.com"}` });
    expect(within.status).toBe(200);
  });

  it("webdata: a crawl id that is not a UUID, or a broken percent-escape, is the live 400 'Invalid job ID format'; a monitor id is zod's BAD_REQUEST naming it", async () => {
    for (const id of ["not-a-uuid", "%zz"]) {
      const reply = await send(web.url, { method: "DELETE", path: `/v2/crawl/${id}`, headers: webKey });
      expect(reply.status, id).toBe(400);
      expect(reply.json).toEqual({ success: false, error: "Invalid job ID format. Job ID must be a valid UUID." });
    }
    const monitor = await send(web.url, { method: "GET", path: "/v2/monitor/not-a-uuid", headers: webKey });
    expect(monitor.status).toBe(400);
    expect(monitor.json).toMatchObject({ code: "BAD_REQUEST", details: expect.arrayContaining([expect.objectContaining({ code: "invalid_format", path: ["monitorId"] })]) });
    expect(isWebError(monitor.json)).toBe(true);
  });

  it("webdata: an x-idempotency-key that is not a UUID is refused as a used one (409), as live", async () => {
    const bad = await post(web.url, "/v2/crawl", { url: "https://example.com" }, { ...webKey, "x-idempotency-key": "once" });
    expect(bad.status).toBe(409);
    expect(bad.json).toEqual({ success: false, error: "Idempotency key already used" });
    const good = await post(web.url, "/v2/crawl", { url: "https://example.com" }, { ...webKey, "x-idempotency-key": crawlId });
    expect(good.status).toBe(200);
  });

  it("entitlements: a JSON body that is not an object is a 400 naming the body, no body at all one naming the members", async () => {
    for (const body of ["null", "false", "0", ""]) {
      const headers = { ...autumnKey, "content-type": "application/json" };
      const reply = await send(ent.url, { method: "POST", path: "/v1/balances.check", headers, body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.json).toMatchObject({
        code: "invalid_inputs",
        // An empty body is read as {}, as the live service reads it.
        message: body === "" ? "Invalid inputs: customer_id is required; feature_id is required" : "Invalid inputs: body: must be object",
      });
    }
  });

  it("webdata: a query value the live service does not check is served (byApiKey, a session status)", async () => {
    for (const path of ["/v2/team/credit-usage/historical?byApiKey=maybe", "/v2/interact?status=sleeping"]) {
      expect((await send(web.url, { method: "GET", path, headers: webKey })).status, path).toBe(200);
    }
  });

  it("webdata: a crawl url is judged by the bundle's url rule, as the live service parses it", async () => {
    for (const url of ["bücher.de", "8.8.8.8", "HTTPS://Docs.Example.com/a path", "example.invalidtld"]) {
      expect((await post(web.url, "/v2/crawl", { url }, webKey)).status, url).toBe(200);
    }
    for (const url of ["0.0.260.0", "a\uD7A4a.0.\u0500A", "localhost:8080", "例子.中国", "http://http://example.com"]) {
      const reply = await post(web.url, "/v2/crawl", { url }, webKey);
      expect(reply.status, url).toBe(400);
      expect((reply.json as { details: Array<{ path: string[] }> }).details.map((d) => d.path.join("."))).toEqual(["url"]);
      expect(isWebError(reply.json)).toBe(true);
    }
  });

  it("entitlements: an invalid body is 400 invalid_inputs naming the field", async () => {
    const reply = await post(ent.url, "/v1/balances.check", { customer_id: "cus_1" }, autumnKey);
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ code: "invalid_inputs", message: "Invalid inputs: feature_id is required" });
    expect(isEntError(reply.json)).toBe(true);
  });

  it("entitlements: what the live service accepts is answered 200 (customer_data, entity_data, an ignored member, a negative required_balance), and what it refuses is 400 (a fractional track timestamp)", async () => {
    const accepted = [
      { ...check, customer_data: { name: "Ada", email: "ada@example.com" }, entity_id: "seat_1", entity_data: { feature_id: "seats" } },
      { ...check, source: "web" },
      { ...check, required_balance: -5 },
    ];
    for (const body of accepted) expect((await post(ent.url, "/v1/balances.check", body, autumnKey)).status, JSON.stringify(body)).toBe(200);
    const refused = await post(ent.url, "/v1/balances.track", { ...check, timestamp: 1700000000000.5 }, autumnKey);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: "invalid_inputs" });
    expect((refused.json as { message: string }).message).toContain("timestamp");
  });

  it("entitlements: every body is read as JSON whatever its Content-Type, and one that does not parse as {}", async () => {
    const served = await send(ent.url, { method: "POST", path: "/v1/balances.check", headers: { ...autumnKey, "content-type": "text/plain" }, body: JSON.stringify(check) });
    expect(served.status, served.text).toBe(200);
    for (const [type, body] of [
      ["application/json", "{"],
      ["text/plain", "customer_id=1"],
    ] as const) {
      const reply = await send(ent.url, { method: "POST", path: "/v1/balances.check", headers: { ...autumnKey, "content-type": type }, body });
      expect(reply.status, type).toBe(400);
      expect(reply.json).toMatchObject({ code: "invalid_inputs", message: "Invalid inputs: customer_id is required; feature_id is required" });
    }
  });

  it("webdata: a form body is read as the live service reads it, and a body of another type is left unread", async () => {
    const form = await send(web.url, { method: "POST", path: "/v2/crawl", headers: { ...webKey, "content-type": "application/x-www-form-urlencoded" }, body: "url=https%3A%2F%2Fexample.com" });
    expect(form.status, form.text).toBe(200);
    const plain = await send(web.url, { method: "POST", path: "/v2/crawl", headers: { ...webKey, "content-type": "text/plain" }, body: JSON.stringify({ url: "https://example.com" }) });
    expect(plain.status).toBe(400);
    expect(plain.json).toMatchObject({ code: "BAD_REQUEST", details: [{ path: ["url"] }] });
  });

  it("entitlements: a malformed x-api-version is 400 invalid_api_version", async () => {
    const reply = await post(ent.url, "/v1/balances.check", check, { ...autumnKey, "x-api-version": "latest" });
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ code: "invalid_api_version" });
  });

  it("unknown paths and wrong methods get a documented 4xx, never problem+json", async () => {
    const cases = [
      [web.url, "GET", "/v2/nowhere", webKey],
      [web.url, "PUT", "/v2/crawl", webKey],
      [ent.url, "GET", "/v1/balances.check", autumnKey],
      [ent.url, "POST", "/v1/customers", autumnKey],
    ] as const;
    for (const [url, method, path, headers] of cases) {
      const reply = await send(url, { method, path, headers });
      expect(reply.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(reply.status).toBeLessThan(500);
      expect(String(reply.headers["content-type"])).not.toMatch(/problem/);
      expect((url === web.url ? isWebError : isEntError)(reply.json), reply.text).toBe(true);
    }
  });
});

describe("Prefer header", () => {
  it("Prefer: example=<name> serves that named example with its status", async () => {
    const examples = documentedExamples("entitlements", "/v1/balances.check", "post");
    for (const name of ["denied-usage-limit", "boolean-flag", "allowed-unlimited"]) {
      const reply = await post(ent.url, "/v1/balances.check", check, { ...autumnKey, prefer: `example=${name}` });
      expect(reply.status, name).toBe(examples.get(name)?.status);
      expect(reply.json).toEqual(examples.get(name)?.value);
    }
  });

  it("Prefer: example=<name> finds an example under a non-default status (202 fail-open)", async () => {
    const examples = documentedExamples("entitlements", "/v1/balances.check", "post");
    const [name, failOpen] = [...examples].find(([, x]) => x.status === 202)!;
    const reply = await post(ent.url, "/v1/balances.check", check, { ...autumnKey, prefer: `example=${name}` });
    expect(reply.status).toBe(202);
    expect(reply.json).toEqual(failOpen.value);
  });

  it("Prefer: code=<status> serves a documented status", async () => {
    const reply = await send(web.url, { method: "GET", path: "/v2/monitor/" + crawlId, headers: { ...webKey, prefer: "code=404" } });
    expect(reply.status).toBe(404);
    expect(reply.json).toEqual({ success: false, error: "Monitor not found" });
    const denied = await post(ent.url, "/v1/balances.check", check, { ...autumnKey, prefer: "code=404" });
    expect(denied.status).toBe(404);
    expect(isEntError(denied.json)).toBe(true);
  });

  it("entitlements: every documented error names env sandbox, as the mock's own refusals do (its keys are test keys)", async () => {
    const refused = await post(ent.url, "/v1/balances.check", check);
    const unavailable = await post(ent.url, "/v1/balances.check", check, { ...autumnKey, prefer: "code=503" });
    expect([refused.json, unavailable.json]).toMatchObject([{ env: "sandbox" }, { code: "service_unavailable", env: "sandbox" }]);
    const paths = loadBundle("entitlements").paths as Record<string, Record<string, unknown>>;
    const envs = new Map<string, unknown>();
    for (const [path, operations] of Object.entries(paths)) {
      for (const method of Object.keys(operations).filter((key) => /^(get|post|put|patch|delete)$/.test(key))) {
        for (const [name, example] of documentedExamples("entitlements", path, method)) {
          if (example.status >= 400) envs.set(`${method} ${path} ${name}`, (example.value as { env?: unknown }).env);
        }
      }
    }
    expect(envs.size).toBeGreaterThan(20);
    expect([...envs].filter(([, env]) => env !== "sandbox")).toEqual([]);
  });

  it("Prefer naming an undocumented status or example is a documented 400 that lists what exists", async () => {
    for (const prefer of ["code=418", "example=no-such-example", "code=abc"]) {
      const reply = await post(ent.url, "/v1/balances.check", check, { ...autumnKey, prefer });
      expect(reply.status, prefer).toBe(400);
      expect(isEntError(reply.json)).toBe(true);
      expect((reply.json as { message: string }).message).toMatch(/Prefer/);
    }
  });

  it("Prefer: dynamic=true generates a body that still has the documented shape", async () => {
    const reply = await post(web.url, "/v2/crawl", { url: "https://example.com" }, { ...webKey, prefer: "dynamic=true" });
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ success: true, id: expect.any(String), url: expect.any(String) });
  });
});

describe("dynamic mode", () => {
  it("the same seed gives the same generated body", async () => {
    const a = await startMockServer({ service: "webdata", dynamic: true, seed: 7 });
    const b = await startMockServer({ service: "webdata", dynamic: true, seed: 7 });
    try {
      const [x, y] = await Promise.all([a, b].map((s) => send(s.url, { method: "GET", path: "/v2/team/token-usage", headers: webKey })));
      expect(x!.status).toBe(200);
      expect(x!.json).toEqual(y!.json);
      expect(x!.json).toMatchObject({ success: true });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
