import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OpenApiValidators, loadBundle } from "@api-contracts/contract-core";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startContractProxy, type ContractProxy, type ContractProxyOptions } from "../src/index.js";
import { entitlementsKey, fakeUpstream, json, postJson, send, webdataKey, type Upstream } from "./support.js";

/** The first documented example of an operation's answer at a status. */
function example(service: string, operationId: string, status: string): any {
  const operation = new OpenApiValidators(loadBundle(service)).walkedOperations().find((op) => op.operationId === operationId)!;
  return structuredClone(operation.responses.find((r) => r.status === status)!.media[0]!.examples[0]!.value);
}

const reportDir = mkdtempSync(join(tmpdir(), "contract-proxy-"));
afterAll(() => rmSync(reportDir, { recursive: true, force: true }));
let opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.map((s) => s.close()));
  opened = [];
});

async function proxyTo(answer: Parameters<typeof fakeUpstream>[0], options: Partial<ContractProxyOptions> = {}): Promise<{ upstream: Upstream; proxy: ContractProxy; report: string }> {
  const upstream = await fakeUpstream(answer);
  const report = join(reportDir, `${Math.random().toString(36).slice(2)}.jsonl`);
  const proxy = await startContractProxy({ service: "entitlements", upstream: upstream.url, report, ...options });
  opened.push(proxy, upstream);
  return { upstream, proxy, report };
}

const lines = (file: string) => readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
const check = { customer_id: "cus_123", feature_id: "messages" };
const auth = { authorization: `Bearer ${entitlementsKey}` };
const pointers = (proxy: ContractProxy) => proxy.violations.map((v) => [v.operationId, v.direction, v.status, v.errors.map((e) => `${e.in}${e.pointer} ${e.keyword}`)]);

describe("an upstream that breaks the contract is reported with the operation and the JSON pointer", () => {
  it("wrong type: balance.remaining sent as a string", async () => {
    const body = example("entitlements", "checkAccess", "200");
    body.balance.remaining = "742";
    const { proxy, report } = await proxyTo(json(200, body));
    const reply = await postJson(proxy.url, "/v1/balances.check", check, auth);
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual(body);
    expect(reply.headers["x-contract-violations"]).toBe("1");
    expect(pointers(proxy)).toEqual([["checkAccess", "response", 200, ["body/balance/remaining type"]]]);
    const [line] = lines(report);
    expect(line).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      service: "entitlements",
      operationId: "checkAccess",
      method: "POST",
      path: "/v1/balances.check",
      status: 200,
      direction: "response",
      errors: [{ in: "body", pointer: "/balance/remaining", keyword: "type", message: "must be number" }],
    });
  });

  it("missing member: allowed left out", async () => {
    const body = example("entitlements", "checkAccess", "200");
    delete body.allowed;
    const { proxy } = await proxyTo(json(200, body));
    await postJson(proxy.url, "/v1/balances.check", check, auth);
    expect(pointers(proxy)).toEqual([["checkAccess", "response", 200, ["body/allowed required"]]]);
  });

  it("undocumented status: a 418", async () => {
    const { proxy } = await proxyTo(json(418, { message: "teapot", code: "teapot", env: "sandbox" }));
    const reply = await postJson(proxy.url, "/v1/balances.check", check, auth);
    expect(reply.status).toBe(418);
    expect(pointers(proxy)).toEqual([["checkAccess", "response", 418, ["status status"]]]);
    expect(proxy.violations[0]!.errors[0]!.message).toMatch(/418 is not documented for checkAccess; documented: 200, 202, 400/);
  });

  it("wrong error shape: a 401 as { error } instead of { message, code, env }", async () => {
    const { proxy } = await proxyTo(json(401, { error: "Unauthorized" }));
    await postJson(proxy.url, "/v1/balances.check", check, auth);
    const [violation] = proxy.violations;
    expect(violation).toMatchObject({ operationId: "checkAccess", direction: "response", status: 401 });
    expect(violation!.errors.map((e) => e.pointer)).toEqual(expect.arrayContaining(["/message", "/code"]));
  });

  it("wrong type in the Web Data API: startCrawl's id as a number", async () => {
    const body = example("webdata", "startCrawl", "200");
    body.id = 42;
    const { proxy } = await proxyTo(json(200, body), { service: "webdata" });
    await postJson(proxy.url, "/v2/crawl", { url: "https://example.com" }, { authorization: `Bearer ${webdataKey}` });
    expect(pointers(proxy)).toEqual([["startCrawl", "response", 200, ["body/id type"]]]);
  });

  it("an undocumented content type, and a body that is not JSON", async () => {
    const html = await proxyTo((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<p>ok</p>"));
    await postJson(html.proxy.url, "/v1/balances.check", check, auth);
    expect(pointers(html.proxy)).toEqual([["checkAccess", "response", 200, ["header/content-type media-type"]]]);
    const broken = await proxyTo((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"allowed": tru'));
    const reply = await postJson(broken.proxy.url, "/v1/balances.check", check, auth);
    expect(reply.text).toBe('{"allowed": tru');
    expect(pointers(broken.proxy)).toEqual([["checkAccess", "response", 200, ["body json"]]]);
  });

  it("a gzip-encoded answer is judged on its decoded body and passed on still encoded", async () => {
    const { gzipSync } = await import("node:zlib");
    const body = example("entitlements", "checkAccess", "200");
    body.allowed = "yes";
    const encoded = gzipSync(JSON.stringify(body));
    const { proxy } = await proxyTo((_req, res) => res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(encoded));
    const reply = await send(proxy.url, "POST", "/v1/balances.check", { ...auth, "content-type": "application/json", "accept-encoding": "gzip" }, JSON.stringify(check));
    expect(reply.headers["content-encoding"]).toBe("gzip");
    expect(pointers(proxy)).toEqual([["checkAccess", "response", 200, ["body/allowed type"]]]);
  });

  it("a request that breaks the contract is reported as a request violation, and still forwarded", async () => {
    const { proxy, upstream } = await proxyTo(json(400, { message: "Invalid inputs", code: "invalid_inputs", env: "sandbox" }));
    const reply = await postJson(proxy.url, "/v1/balances.check", { customer_id: 7 }, auth);
    expect(upstream.received).toHaveLength(1);
    expect(reply.headers["x-contract-violations"]).toBe("1");
    expect(pointers(proxy)).toEqual([["checkAccess", "request", 400, ["body/feature_id required", "body/customer_id type"]]]);
  });

  it("a request without a key is the request's problem; any well-formed key passes, as the proxy cannot know which keys the upstream accepts", async () => {
    const { proxy, upstream } = await proxyTo(json(200, example("entitlements", "checkAccess", "200")));
    const bare = await postJson(proxy.url, "/v1/balances.check", check);
    expect(bare.status).toBe(200);
    expect(bare.headers["x-contract-violations"]).toBe("1");
    const unknown = await postJson(proxy.url, "/v1/balances.check", check, { authorization: "Bearer am_sk_test_nobody_knows_this_one" });
    expect(unknown.headers["x-contract-violations"]).toBe("0");
    expect(upstream.received).toHaveLength(2);
    expect(pointers(proxy)).toEqual([["checkAccess", "request", 200, ["header/authorization authorization"]]]);
  });

  it("a request to no documented operation is reported without an operation", async () => {
    const { proxy } = await proxyTo(json(404, { message: "nope", code: "invalid_request", env: "sandbox" }));
    await send(proxy.url, "GET", "/v1/balances.check");
    expect(pointers(proxy)).toEqual([[null, "request", 404, ["path operation"]]]);
    expect(proxy.violations[0]!.errors[0]!.message).toBe("GET /v1/balances.check is not an operation of the contract; documented at this path: POST");
  });
});

describe("--strict", () => {
  it("replaces an answer that breaks the contract by a 502 in the API's error shape naming the violations", async () => {
    const body = example("entitlements", "checkAccess", "200");
    body.balance.remaining = "742";
    const { proxy, report } = await proxyTo(json(200, body), { strict: true });
    const reply = await postJson(proxy.url, "/v1/balances.check", check, auth);
    expect(reply.status).toBe(502);
    expect(reply.headers["x-contract-violations"]).toBe("1");
    expect(reply.json).toEqual({ message: expect.stringContaining("body/balance/remaining must be number"), code: "internal_error", env: "sandbox" });
    expect(reply.json.message).toMatch(/^Bad gateway: the upstream's 200 answer to checkAccess breaks the contract/);
    expect(lines(report)).toMatchObject([{ operationId: "checkAccess", direction: "response", status: 200 }]);
  });

  it("refuses a request that breaks the contract with the API's 400, without reaching the upstream", async () => {
    const { proxy, upstream } = await proxyTo(json(200, example("entitlements", "checkAccess", "200")), { strict: true });
    const reply = await postJson(proxy.url, "/v1/balances.check", { customer_id: "cus_123" }, auth);
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ message: "Invalid inputs: feature_id is required", code: "invalid_inputs", env: "sandbox" });
    expect(upstream.received).toHaveLength(0);
    expect(pointers(proxy)).toEqual([["checkAccess", "request", 400, ["body/feature_id required"]]]);
  });

  it("refuses a request without a key with the API's own 401, without reaching the upstream", async () => {
    const { proxy, upstream } = await proxyTo(json(200, example("entitlements", "checkAccess", "200")), { strict: true });
    const reply = await postJson(proxy.url, "/v1/balances.check", check);
    expect(reply.status).toBe(401);
    expect(reply.json).toMatchObject({ code: expect.any(String), env: "sandbox" });
    expect(upstream.received).toHaveLength(0);
    expect(pointers(proxy)).toEqual([["checkAccess", "request", 401, ["header/authorization authorization"]]]);
  });

  it("the Web Data API's 400 is its own BAD_REQUEST shape", async () => {
    const { proxy, upstream } = await proxyTo(json(200, {}), { strict: true, service: "webdata" });
    const reply = await postJson(proxy.url, "/v2/crawl", { url: "https://example.com", delay: 61 }, { authorization: `Bearer ${webdataKey}` });
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ success: false, code: "BAD_REQUEST", details: [{ path: ["delay"] }] });
    expect(upstream.received).toHaveLength(0);
  });

  it("passes a clean exchange through unchanged", async () => {
    const body = example("entitlements", "checkAccess", "200");
    const { proxy } = await proxyTo(json(200, body), { strict: true });
    const reply = await postJson(proxy.url, "/v1/balances.check", check, auth);
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual(body);
    expect(reply.headers["x-contract-violations"]).toBe("0");
    expect(proxy.violations).toEqual([]);
  });
});

describe("keys and tokens never reach the report", () => {
  it("an echoed key, in values and in member names, is redacted, and so are cookies and x-api-key", async () => {
    const secretCookie = "session-cookie-value-1234";
    const otherKey = "am_sk_live_somebodyelse999";
    const body = example("entitlements", "checkAccess", "200");
    body.allowed = entitlementsKey;
    body.balances = { [entitlementsKey]: { ...body.balance, remaining: "none" }, [secretCookie]: 1, [otherKey]: 2 };
    const { proxy, report } = await proxyTo(json(200, body));
    const reply = await postJson(proxy.url, `/v1/balances.check?token=${entitlementsKey}`, { ...check, required_balance: entitlementsKey, [entitlementsKey]: 1 }, {
      ...auth,
      cookie: `sid=${secretCookie}`,
      "x-api-key": entitlementsKey,
    });
    expect(reply.json.allowed).toBe(entitlementsKey);
    const text = readFileSync(report, "utf8");
    expect(lines(report).map((l) => l.direction)).toEqual(["request", "response"]);
    expect(text).toContain("[redacted]");
    for (const secret of [entitlementsKey, secretCookie, otherKey, "am_sk_"]) expect(text).not.toContain(secret);
    expect(JSON.stringify(proxy.violations)).not.toContain(entitlementsKey);
  });

  it("the request's own credential is hidden in any letter case, as the kit hides its key", async () => {
    const secret = "Custom-Credential-Value-42";
    const body = example("entitlements", "checkAccess", "200");
    body.balances = { [secret.toLowerCase()]: 1, [secret.toUpperCase()]: 2 };
    const { proxy, report } = await proxyTo(json(200, body));
    await postJson(proxy.url, "/v1/balances.check", check, { ...auth, "x-api-key": secret });
    const text = readFileSync(report, "utf8");
    expect(text).toContain("[redacted]");
    for (const shown of [secret, secret.toLowerCase(), secret.toUpperCase()]) expect(text).not.toContain(shown);
  });

  it("the strict 502 does not echo the key either", async () => {
    const body = example("entitlements", "checkAccess", "200");
    body.balances = { [entitlementsKey]: { ...body.balance, remaining: "none" } };
    const { proxy } = await proxyTo(json(200, body), { strict: true });
    const reply = await postJson(proxy.url, "/v1/balances.check", check, auth);
    expect(reply.status).toBe(502);
    expect(reply.json.message).toContain("body/balances/[redacted]/remaining must be number");
    expect(reply.text).not.toContain(entitlementsKey);
  });
});

describe("report lines are bounded", () => {
  it("at most 20 errors, and long member names are cut", async () => {
    const body = example("entitlements", "checkAccess", "200");
    body.balances = {};
    for (let i = 0; i < 100; i++) body.balances[`feature_${"x".repeat(1000)}_${i}`] = i;
    const { proxy, report } = await proxyTo(json(200, body));
    await postJson(proxy.url, "/v1/balances.check", check, auth);
    const [line] = lines(report);
    expect(line.errors.length).toBeLessThanOrEqual(20);
    expect(line.errors[0].pointer.length).toBeLessThanOrEqual(200);
    expect(readFileSync(report, "utf8").length).toBeLessThanOrEqual(16 * 1024 + 1);
  });
});

afterAll(() => undefined);
