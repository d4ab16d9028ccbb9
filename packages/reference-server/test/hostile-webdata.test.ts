import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultFixtures, MAX_REPORTED_ERRORS } from "../src/index.js";
import { coreModule, manualClock, rawPost, rawRequest, runIsolated, startApi, type ApiUnderTest, type RawAnswer, validatorsOf } from "./helpers.js";

const KEY = defaultFixtures.api_keys.webdata;
const CRAWL = "/v2/crawl";
const spec = validatorsOf("webdata");
const CRAWL_BODY = JSON.stringify({ url: "https://example.com" });

/** A small answer that the contract documents for this operation and status. */
function expectDocumented(answer: { status: number; body: any; text?: string }, status: number, method: string, operation: string): void {
  expect(answer.status).toBe(status);
  expect((answer.text ?? JSON.stringify(answer.body)).length).toBeLessThan(64 * 1024);
  const documented = spec.response(method, operation, status);
  expect(documented, `${method} ${operation} documents ${status}`).not.toBeNull();
  expect(documented!(answer.body), JSON.stringify(documented!.errors)).toBe(true);
}

const post = (target: string, body: string): string => rawPost(KEY, target, body);

describe("web data reference server under hostile input", () => {
  const clock = manualClock();
  let api: ApiUnderTest;
  let tight: ApiUnderTest;
  beforeAll(async () => {
    api = await startApi("webdata");
    tight = await startApi("webdata", { now: clock.now, publicUrl: "https://crawl.example.com/base/", limits: { maxCrawls: 2, maxIdempotencyKeys: 2, idempotencyKeyTtlMs: 60_000, requestTimeoutMs: 400, headersTimeoutMs: 300 } });
  });
  afterAll(async () => {
    await Promise.all([api.server.close(), tight.server.close()]);
  });

  it("error amplification: 200 000 wrong-typed array items are answered with at most 20 details in under 64 KB", async () => {
    const answer = await rawRequest(api.server.url, post(CRAWL, `{"url":"https://example.com","includePaths":[${Array(200_000).fill(1).join(",")}]}`));
    expectDocumented(answer, 400, "POST", CRAWL);
    expect(answer.body.details.length).toBeLessThanOrEqual(MAX_REPORTED_ERRORS);
  });

  it("error amplification: a huge unknown member name is cut short in the answer", async () => {
    const answer = await api.post(CRAWL, { url: "https://example.com", ["k".repeat(500_000)]: 1 });
    expectDocumented(answer, 400, "POST", CRAWL);
    expect(answer.body.details[0].keys[0].length).toBeLessThan(1000);
  });

  it("linear-time parsing: a 1 MB 'Bearer<spaces>a b' header is refused by a one-pass parser (the old backtracking pattern took 0.4 s at 16 KB, quadratically more beyond)", async () => {
    // In a child process, so that a regression shows as a failed test rather than a frozen run.
    const stdout = await runIsolated(`import { contractOf } from ${coreModule};
      const contract = contractOf("webdata");
      const decision = contract.decide({ method: "GET", target: "/v2/team/token-usage", headers: { authorization: "Bearer" + " ".repeat(1 << 20) + "a b" } }, { acceptsKey: (key) => key === "k" });
      process.stdout.write(JSON.stringify(contract.refusalOf(decision)));`);
    // Firecrawl takes the second space-separated word: after "Bearer" comes an empty one.
    expect(JSON.parse(stdout)).toEqual({ status: 401, body: { success: false, error: "Unauthorized: Token missing" } });
  }, 40_000);

  it("linear-time parsing: a 16 KB spaced-out Authorization header is a documented 401", async () => {
    const answer = await api.request("GET", "/v2/team/token-usage", { auth: `Bearer${" ".repeat(16_000)}a b` });
    expect(answer).toEqual({ status: 401, body: { success: false, error: "Unauthorized: Token missing" } });
  });

  it("amounts: numbers JSON cannot hold (1e400) are 400 BAD_REQUEST naming the member", async () => {
    const answer = await rawRequest(api.server.url, post(CRAWL, `{"url":"https://example.com","delay":1e400}`));
    expectDocumented(answer, 400, "POST", CRAWL);
    expect(answer.body.details.map((d: { path: unknown[] }) => d.path)).toContainEqual(["delay"]);
  });

  it("bounded state: started crawls are capped, the oldest forgotten (404), the fixtures' crawls kept", async () => {
    const started = [];
    for (let i = 0; i < 3; i++) started.push((await tight.post(CRAWL, { url: `https://example.com/${i}` })).body.id);
    const cancel = (id: string) => tight.request("DELETE", `/v2/crawl/${id}`, { template: "/v2/crawl/{id}" });
    expect((await cancel(started[0])).status).toBe(404);
    expect((await cancel(started[1])).status).toBe(200);
    expect((await cancel(started[2])).status).toBe(200);
    const completed = defaultFixtures.world!.webdata.crawls!.find((c) => c.status === "completed")!;
    expect((await cancel(completed.id)).status).toBe(409);
  });

  it("bounded state: idempotency keys expire after their time and the oldest is forgotten beyond the cap", async () => {
    const start = (key: string) => tight.post(CRAWL, { url: "https://example.com" }, { headers: { "x-idempotency-key": key } });
    const keys = ["0b0e0c1a-0000-4000-8000-00000000000a", "0b0e0c1a-0000-4000-8000-00000000000b", "0b0e0c1a-0000-4000-8000-00000000000c"];
    expect((await start(keys[0]!)).status).toBe(200);
    expect((await start(keys[0]!)).status).toBe(409);
    clock.advance(60_001);
    expect((await start(keys[0]!)).status).toBe(200);
    expect((await start(keys[1]!)).status).toBe(200);
    expect((await start(keys[2]!)).status).toBe(200);
    expect((await start(keys[0]!)).status).toBe(200);
    expect((await start(keys[2]!)).status).toBe(409);
  });

  it("sizes before reading: a declared Content-Length over the limit is 413 at once, without the body", async () => {
    const answer = await rawRequest(api.server.url, `POST ${CRAWL} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n{`);
    expectDocumented(answer, 413, "POST", CRAWL);
    expect(answer.headers.connection).toBe("close");
  });

  it("timeouts: a body that trickles in past the request timeout, and headers that never end, are answered 408", async () => {
    const trickled = await rawRequest(tight.server.url, `POST ${CRAWL} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"url`, (socket) => {
      const drip = setInterval(() => (socket.writable ? socket.write(" ") : clearInterval(drip)), 50);
      socket.on("close", () => clearInterval(drip));
    });
    expectDocumented(trickled, 408, "POST", CRAWL);
    expectDocumented(await rawRequest(tight.server.url, `GET /v2/interact HTTP/1.1\r\nHost: x\r\n`), 408, "GET", "/v2/interact");
  });

  it("framework answers: bad chunked encoding, conflicting Content-Length and Transfer-Encoding, a 20 KB URL and a 20 KB header are 400 in the API's shape", async () => {
    const answers: RawAnswer[] = await Promise.all([
      rawRequest(api.server.url, `POST ${CRAWL} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`),
      rawRequest(api.server.url, `POST ${CRAWL} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n`),
      rawRequest(api.server.url, `POST ${CRAWL}?${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
      rawRequest(api.server.url, `POST ${CRAWL} HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\nConnection: close\r\n\r\n`),
    ]);
    for (const answer of answers) expectDocumented(answer, 400, "POST", CRAWL);
  });

  it("framework answers: on the operation that takes no input, a 20 KB header is the 400 it documents", async () => {
    const answer = await rawRequest(api.server.url, `GET /v2/team/token-usage HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nX-Big: ${"a".repeat(20_000)}\r\nConnection: close\r\n\r\n`);
    expectDocumented(answer, 400, "GET", "/v2/team/token-usage");
  });

  it("a path parameter that does not decode, or of 200 characters, is 400 in the API's shape: the ids are UUIDs", async () => {
    for (const id of ["%ZZ", "a".repeat(200)]) {
      const answer = await rawRequest(api.server.url, `GET /v2/monitor/${id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nConnection: close\r\n\r\n`);
      expectDocumented(answer, 400, "GET", "/v2/monitor/{monitorId}");
    }
  });

  it("no echo: a started crawl's url is built from the public URL, never from the Host header", async () => {
    const answer = await rawRequest(api.server.url, post(CRAWL, CRAWL_BODY).replace("Host: x", "Host: a b"));
    expectDocumented(answer, 200, "POST", CRAWL);
    expect(answer.body.url).toBe(`${api.server.url}/v2/crawl/${answer.body.id}`);
    const configured = await rawRequest(tight.server.url, post(CRAWL, CRAWL_BODY).replace("Host: x", "Host: evil.example"));
    expect(configured.body.url).toBe(`https://crawl.example.com/base/v2/crawl/${configured.body.id}`);
  });

  it("prototype keys: __proto__, constructor and prototype as ids, idempotency keys, query members and nested body members change nothing they should not", async () => {
    for (const name of ["__proto__", "constructor", "prototype"]) {
      expect((await api.request("GET", `/v2/monitor/${name}`, { template: "/v2/monitor/{monitorId}" })).status).toBe(400);
      expect((await api.request("DELETE", `/v2/crawl/${name}`, { template: "/v2/crawl/{id}" })).status).toBe(400);
      // A key that is not a UUID is refused as a used one, as live.
      expect((await api.post(CRAWL, { url: "https://example.com" }, { headers: { "x-idempotency-key": name } })).status).toBe(409);
      const query = await api.request("GET", `/v2/interact?${name}=x`, { template: "/v2/interact" });
      expect([200, 400]).toContain(query.status);
    }
    const body = await api.request("POST", CRAWL, { rawBody: '{"url":"https://example.com","__proto__":{"polluted":true},"scrapeOptions":{"constructor":{"prototype":{"polluted":true}}}}' });
    expect(body.status).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await api.request("GET", "/v2/team/token-usage")).status).toBe(200);
  });
});
