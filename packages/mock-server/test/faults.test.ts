// Latency and faults on demand: per request with `Prefer`, per run with rules. Injected answers are
// the operation's documented ones; nothing injected outlives its connection or wedges the server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseFaults } from "@api-contracts/contract-core";
import type { FaultEvent } from "@api-contracts/contract-core/server";
import { startMockServer, type RunningServer } from "../src/index.js";
import { timedExchange } from "@api-contracts/dev-tools/testing/edge-clients";
import { documentedErrorValidator, documentedExamples } from "./support.js";

const webKey = "Bearer fc-0123456789abcdef0123456789abcdef";
const autumnKey = "Bearer am_sk_test_0123456789";
const check = JSON.stringify({ customer_id: "cus_123", feature_id: "messages" });
const crawl = JSON.stringify({ url: "https://example.com" });

/** One request on its own connection, as sent, to `path` under `base`. */
const exchange = (base: string, path: string, options: Parameters<typeof timedExchange>[1] = {}) => timedExchange(`${base}${path}`, options);

const checkWith = (url: string, prefer?: string, more: { abortMs?: number; body?: string } = {}) =>
  exchange(url, "/v1/balances.check", { body: more.body ?? check, headers: { authorization: autumnKey, ...(prefer ? { prefer } : {}) }, ...(more.abortMs ? { abortMs: more.abortMs } : {}) });
const crawlWith = (url: string, prefer?: string) => exchange(url, "/v2/crawl", { body: crawl, headers: { authorization: webKey, ...(prefer ? { prefer } : {}) } });

/** Sockets this process holds open (the servers under test run in it). */
const openSockets = () => process.getActiveResourcesInfo().filter((kind) => kind === "TCPSocketWrap").length;

async function settles(expected: () => boolean, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (expected()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return expected();
}

let ent: RunningServer;
let web: RunningServer;
const isEntError = documentedErrorValidator("entitlements");
const isWebError = documentedErrorValidator("webdata");
const firstCheck = [...documentedExamples("entitlements", "/v1/balances.check", "post").values()].find((x) => x.status === 200)!.value;

beforeAll(async () => {
  // A short request deadline, so that a hang that nobody gives up on ends within the test.
  [ent, web] = await Promise.all([startMockServer({ service: "entitlements", requestTimeout: 1500 }), startMockServer({ service: "webdata", requestTimeout: 1500 })]);
});
afterAll(async () => {
  await Promise.all([ent?.close(), web?.close()]);
});

describe("Prefer: latency and faults per request", () => {
  it("latency=<ms> waits at least that long, then gives the usual answer", async () => {
    const slow = await checkWith(ent.url, "latency=300");
    expect(slow.status).toBe(200);
    expect(JSON.parse(slow.body!)).toEqual(firstCheck);
    expect(slow.ms).toBeGreaterThanOrEqual(295);
    const slowError = await crawlWith(web.url, "latency=200, code=429");
    expect(slowError.status).toBe(429);
    expect(slowError.ms).toBeGreaterThanOrEqual(195);
  });

  it("fault=reset closes the connection without an answer", async () => {
    for (const outcome of [await checkWith(ent.url, "fault=reset"), await crawlWith(web.url, "fault=reset")]) {
      expect(outcome.status).toBeUndefined();
      expect(outcome.error).toBe("ECONNRESET");
    }
  });

  it("fault=hang sends nothing, and the server closes the connection at its request deadline", async () => {
    const hung = await checkWith(ent.url, "fault=hang");
    expect(hung.status).toBeUndefined();
    expect(hung.error).toBeDefined();
    expect(hung.ms).toBeGreaterThanOrEqual(1450);
    const gaveUp = await checkWith(ent.url, "fault=hang", { abortMs: 100 });
    expect(gaveUp.error).toBe("client gave up");
  });

  it("fault=slow-body sends the head at once and trickles the documented body", async () => {
    const slow = await checkWith(ent.url, "fault=slow-body, example=denied-usage-limit");
    expect(slow.status).toBe(200);
    expect(JSON.parse(slow.body!)).toEqual(documentedExamples("entitlements", "/v1/balances.check", "post").get("denied-usage-limit")!.value);
    expect(slow.chunks).toBeGreaterThanOrEqual(5);
    expect(slow.ms - slow.headMs!).toBeGreaterThanOrEqual(1000);
  });

  it.each([
    ["latency=-1", /latency=-1 must be a whole number of milliseconds from 0 to 60000/],
    ["latency=1e3", /latency=1e3 must be/],
    ["latency=60001", /latency=60001 must be/],
    ["latency=soon", /latency=soon must be/],
    ["fault=drop", /fault=drop must be one of reset, hang, slow-body/],
  ])("Prefer: %s is refused with the API's 400, and nothing is injected", async (prefer, message) => {
    const [entitlements, webdata] = await Promise.all([checkWith(ent.url, prefer), crawlWith(web.url, prefer)]);
    expect(entitlements.status).toBe(400);
    expect(entitlements.ms).toBeLessThan(5000);
    expect(JSON.parse(entitlements.body!)).toMatchObject({ code: "invalid_request", message: expect.stringMatching(message) });
    expect(isEntError(JSON.parse(entitlements.body!))).toBe(true);
    expect(webdata.status).toBe(400);
    expect(isWebError(JSON.parse(webdata.body!))).toBe(true);
    expect(JSON.parse(webdata.body!)).toMatchObject({ code: "BAD_REQUEST", details: [{ code: "custom", message: expect.stringMatching(message) }] });
  });

  it("the documented 503 carries Retry-After: 1 for the Entitlements API; its 429 and the Web Data 429 and 503 carry none", async () => {
    const unavailable = await checkWith(ent.url, "code=503");
    expect([unavailable.status, unavailable.headers!["retry-after"]]).toEqual([503, "1"]);
    expect(JSON.parse(unavailable.body!)).toMatchObject({ code: "service_unavailable" });
    const limited = await checkWith(ent.url, "code=429");
    expect([limited.status, limited.headers!["retry-after"]]).toEqual([429, undefined]);
    for (const code of [429, 503]) {
      const web503 = await crawlWith(web.url, `code=${code}`);
      expect([web503.status, web503.headers!["retry-after"]]).toEqual([code, undefined]);
      expect(isWebError(JSON.parse(web503.body!))).toBe(true);
    }
  });
});

describe("faults by rule, seeded", () => {
  const rules = parseFaults({
    rules: [
      { name: "checks down", operation: "checkAccess", probability: 0.3, status: 503 },
      { name: "checks reset", operation: ["checkAccess", "checkAccessLegacy"], probability: 0.2, fault: "reset" },
      { name: "tracks slow", operation: "trackUsage", latency: { min: 1, max: 5 } },
    ],
  });

  /** What 40 checks and 10 tracks against a mock with these rules and seed come to, in order. */
  async function run(seed: number): Promise<{ outcomes: string[]; events: FaultEvent[] }> {
    const events: FaultEvent[] = [];
    const mock = await startMockServer({ service: "entitlements", faults: { rules, seed, onFault: (event) => events.push(event) } });
    const outcomes: string[] = [];
    try {
      for (let i = 0; i < 50; i++) {
        const outcome =
          i % 5 === 4
            ? await exchange(mock.url, "/v1/balances.track", { body: check, headers: { authorization: autumnKey } })
            : await checkWith(mock.url);
        outcomes.push(outcome.error ?? `${outcome.status}${outcome.headers?.["retry-after"] ? ` retry-after ${outcome.headers["retry-after"]}` : ""}`);
      }
    } finally {
      await mock.close();
    }
    return { outcomes, events };
  }

  it("the same seed gives the same sequence of faults, another seed another; each fired rule is logged", async () => {
    const first = await run(7);
    const again = await run(7);
    const other = await run(8);
    expect(again.outcomes).toEqual(first.outcomes);
    expect(other.outcomes).not.toEqual(first.outcomes);
    expect(new Set(first.outcomes)).toEqual(new Set(["200", "503 retry-after 1", "ECONNRESET"]));
    expect(first.events.filter((e) => e.rule === "checks down").length).toBe(first.outcomes.filter((o) => o.startsWith("503")).length);
    expect(first.events.filter((e) => e.rule === "checks reset").length).toBe(first.outcomes.filter((o) => o === "ECONNRESET").length);
    expect(first.events.filter((e) => e.rule === "tracks slow")).toHaveLength(10);
    expect(first.events.find((e) => e.rule === "checks down")).toMatchObject({ service: "entitlements", operationId: "checkAccess", method: "POST", path: "/v1/balances.check", status: 503 });
  });

  it("an injected status falls before the request is checked, in the operation's documented shape", async () => {
    const mock = await startMockServer({ service: "webdata", faults: { rules: parseFaults({ rules: [{ operation: "getTokenUsage", status: 503, retryAfter: 2 }] }) } });
    try {
      const answer = await exchange(mock.url, "/v2/team/token-usage", { method: "GET" });
      expect(answer.status).toBe(503);
      expect(answer.headers!["retry-after"]).toBe("2");
      expect(JSON.parse(answer.body!)).toEqual({ success: false, error: "OAuth authentication is temporarily unavailable" });
      expect((await crawlWith(mock.url)).status).toBe(200);
    } finally {
      await mock.close();
    }
  });

  it("a request's Prefer wins over the rules", async () => {
    const mock = await startMockServer({ service: "entitlements", faults: { rules: parseFaults({ rules: [{ fault: "reset" }] }) } });
    try {
      expect((await checkWith(mock.url)).error).toBe("ECONNRESET");
      expect((await checkWith(mock.url, "latency=1")).status).toBe(200);
    } finally {
      await mock.close();
    }
  });

  it("a rule whose status the operation does not document stops the start", async () => {
    await expect(startMockServer({ service: "entitlements", faults: { rules: parseFaults({ rules: [{ status: 402 }] }) } })).rejects.toThrow(/documents no 402 answer/);
  });
});

describe("nothing injected crashes or wedges the server", () => {
  it("after a burst of every fault, abandoned by impatient clients or waited out, the server's sockets return to where they were and it still answers", async () => {
    const mock = await startMockServer({ service: "entitlements", requestTimeout: 1000 });
    try {
      const baseline = openSockets();
      const burst = ["fault=reset", "fault=hang", "fault=slow-body", "latency=20000", "latency=5, code=503"].flatMap((prefer) =>
        Array.from({ length: 10 }, () => checkWith(mock.url, prefer, { abortMs: 150 })),
      );
      // Patient clients of a hang are let go at the request deadline.
      const patient = Array.from({ length: 5 }, () => checkWith(mock.url, "fault=hang"));
      await Promise.all(burst);
      expect((await Promise.all(patient)).every((outcome) => outcome.error === "ECONNRESET")).toBe(true);
      expect(await settles(() => openSockets() <= baseline)).toBe(true);
      expect((await checkWith(mock.url)).status).toBe(200);
    } finally {
      await mock.close();
    }
  });

  it("close() returns at once with hangs, waits and slow bodies in flight", async () => {
    const mock = await startMockServer({ service: "entitlements" });
    const inFlight = ["fault=hang", "latency=60000", "fault=slow-body"].map((prefer) => checkWith(mock.url, prefer));
    await new Promise((resolve) => setTimeout(resolve, 150));
    const started = Date.now();
    await mock.close();
    expect(Date.now() - started).toBeLessThan(2000);
    const outcomes = await Promise.all(inFlight);
    expect(outcomes.every((outcome) => outcome.error !== undefined)).toBe(true);
  });
});
