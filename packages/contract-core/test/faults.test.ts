// The faults format the mock and the proxy share: one schema, checked rule by rule; seeded draws;
// the documented answers an injected status serves; and fault effects whose timers end with the
// connection.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type Server, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
// @ts-expect-error: a plain script of this package, without types.
import { renderType, typeFile } from "../scripts/generate-types.mjs";
import { FaultsError, OpenApiValidators, documentedAnswer, loadBundle, loadFaults, parseFaults, type CheckedFaultRule } from "../src/index.js";
import {
  FaultInjector,
  SLOW_BODY_INTERVAL_MS,
  delayAnswer,
  describeFault,
  endSlowly,
  hangConnection,
  listen,
  resetConnection,
  sampleLatency,
  seededRandom,
  seedFor,
} from "../src/server/index.js";

const require = createRequire(import.meta.url);
const entitlements = new OpenApiValidators(loadBundle("entitlements"));
const webdata = new OpenApiValidators(loadBundle("webdata"));
const dir = mkdtempSync(path.join(tmpdir(), "faults-core-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fileWith(content: unknown): string {
  const file = path.join(dir, `faults-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

describe("faults format: one JSON Schema", () => {
  it("is exported as @api-contracts/contract-core/faults.schema.json and accepts a file of every kind of rule", () => {
    const schema = JSON.parse(readFileSync(require.resolve("@api-contracts/contract-core/faults.schema.json"), "utf8")) as object;
    const validate = new Ajv2020({ strict: true }).compile(schema);
    const file = {
      rules: [
        { name: "checks down", operation: "checkAccess", probability: 0.1, status: 503 },
        { operation: ["trackUsage", "finalizeLock"], fault: "reset", probability: 0.05 },
        { fault: "hang", latency: 10 },
        { latency: { min: 5, max: 50 } },
        { latency: { median: 80, p99: 900 }, status: 429 },
      ],
    };
    expect(validate(file), JSON.stringify(validate.errors)).toBe(true);
  });

  it("src/generated/faults.ts is what the generator makes of the schema (regenerate with npm run generate)", async () => {
    expect(readFileSync(typeFile("faults"), "utf8")).toBe(await renderType("faults"));
  });

  it("fills in defaults: every operation, probability 1, and a name from the rule's position", () => {
    const [first, second] = parseFaults({ rules: [{ fault: "reset" }, { name: "slow checks", operation: "checkAccess", latency: 20, probability: 0.5 }] });
    expect(first).toEqual({ name: "rule 1", position: 1, operations: undefined, probability: 1, latency: undefined, fault: "reset", status: undefined, retryAfter: undefined });
    expect(second).toMatchObject({ name: "slow checks", position: 2, operations: ["checkAccess"], probability: 0.5, latency: 20 });
  });

  it.each([
    ["a rule that does nothing", { rules: [{ fault: "reset" }, { operation: "checkAccess" }] }, /^the faults: rule 2 needs latency, fault or status$/],
    ["a fault and a status at once", { rules: [{ name: "both", fault: "hang", status: 503 }] }, /rule 1 \("both"\) has both fault and status/],
    ["retryAfter without a status", { rules: [{ fault: "reset", retryAfter: 2 }] }, /rule 1 has retryAfter without status/],
    ["a probability above 1", { rules: [{ fault: "reset", probability: 1.5 }] }, /rule 1 probability must be <= 1/],
    ["an unknown fault", { rules: [{ fault: "drop" }] }, /rule 1 fault must be one of "reset", "hang", "slow-body"/],
    ["a latency past the bound", { rules: [{ latency: 600000 }] }, /rule 1 latency must be a whole number of milliseconds from 0 to 60000/],
    ["a range upside down", { rules: [{ latency: { min: 50, max: 5 } }] }, /rule 1 latency has min 50 above max 5/],
    ["a median above its p99", { rules: [{ latency: { median: 500, p99: 100 } }] }, /rule 1 latency has median 500 above p99 100/],
    ["a misspelt member", { rules: [{ fault: "reset", probabilty: 0.1 }] }, /rule 1 has "probabilty", which is not part of the format/],
    ["a status that is no error", { rules: [{ status: 200 }] }, /rule 1 status must be >= 400/],
    ["no rules", { rules: [] }, /member rules must NOT have fewer than 1 items/],
    ["something else than a file of rules", ["reset"], /the file must be object/],
  ])("refuses %s, naming the rule", (_, value, message) => {
    expect(() => parseFaults(value)).toThrow(FaultsError);
    expect(() => parseFaults(value)).toThrow(message);
  });

  it("a file is checked against the APIs it is used with: operations must exist and document the status", () => {
    const good = fileWith({ rules: [{ operation: "checkAccess", status: 503 }, { operation: "startCrawl", fault: "reset" }] });
    expect(loadFaults(good, ["entitlements", "webdata"])).toHaveLength(2);
    expect(() => loadFaults(good, ["entitlements"])).toThrow(/rule 2 names "startCrawl", which is not an operation of the entitlements API; operations: checkAccess, /);
    const missing = fileWith({ rules: [{ latency: 5 }, { name: "not found", status: 404 }] });
    expect(() => loadFaults(missing, ["entitlements"])).toThrow(/rule 2 \("not found"\) answers 404, which finalizeLock does not document with an example; name the operations that do in "operation"/);
    expect(() => loadFaults(fileWith("{"), ["webdata"])).toThrow(/is not JSON/);
    expect(() => loadFaults(path.join(dir, "absent.json"), ["webdata"])).toThrow(/cannot be read/);
    expect(() => loadFaults(fileWith(" ".repeat(300 * 1024)), ["webdata"])).toThrow(/is larger than 262144 bytes/);
  });
});

describe("injected statuses are the operation's documented answers", () => {
  it("entitlements 503: the service_unavailable example with Retry-After: 1", () => {
    const answer = documentedAnswer(entitlements, "checkAccess", 503)!;
    expect(answer.headers).toEqual({ "content-type": "application/json", "retry-after": "1" });
    expect(JSON.parse(answer.body.toString())).toMatchObject({ code: "service_unavailable" });
  });

  it("entitlements 429 and web data 503 carry no Retry-After, as the live services send them", () => {
    expect(documentedAnswer(entitlements, "checkAccess", 429)!.headers).toEqual({ "content-type": "application/json" });
    const webUnavailable = documentedAnswer(webdata, "getTokenUsage", 503)!;
    expect(webUnavailable.headers).toEqual({ "content-type": "application/json" });
    expect(JSON.parse(webUnavailable.body.toString())).toEqual({ success: false, error: "OAuth authentication is temporarily unavailable" });
  });

  it("a status the operation does not document has no answer", () => {
    expect(documentedAnswer(entitlements, "finalizeLock", 402)).toBeUndefined();
  });
});

describe("seeded decisions", () => {
  const rules = (document: unknown): CheckedFaultRule[] => parseFaults(document);
  const sequence = (injector: FaultInjector, operations: string[]) =>
    operations.map((id) => {
      const d = injector.decide(id);
      return d ? `${d.rule}:${d.fault ?? d.answer?.status ?? ""}:${d.latencyMs}` : "-";
    });
  const traffic = Array.from({ length: 400 }, (_, i) => (i % 3 === 0 ? "trackUsage" : "checkAccess"));
  const mixed = { rules: [{ name: "resets", operation: "checkAccess", probability: 0.2, fault: "reset" }, { name: "down", probability: 0.1, status: 503, latency: { min: 1, max: 40 } }] };

  it("the same seed and the same requests give the same faults; another seed gives others", () => {
    const first = sequence(new FaultInjector(rules(mixed), { validators: entitlements, service: "entitlements", seed: 42 }), traffic);
    const again = sequence(new FaultInjector(rules(mixed), { validators: entitlements, service: "entitlements", seed: 42 }), traffic);
    const other = sequence(new FaultInjector(rules(mixed), { validators: entitlements, service: "entitlements", seed: 43 }), traffic);
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
    expect(first.filter((d) => d.startsWith("resets")).length).toBeGreaterThan(0);
    expect(first.filter((d) => d.startsWith("down")).length).toBeGreaterThan(0);
  });

  it("a rule fires about as often as its probability says, and the first rule that wins its draw is the one", () => {
    const injector = new FaultInjector(rules({ rules: [{ probability: 0.1, fault: "reset" }, { fault: "hang" }] }), { validators: webdata, service: "webdata", seed: 1 });
    const fired = Array.from({ length: 20000 }, () => injector.decide("startCrawl")!.fault);
    const resets = fired.filter((f) => f === "reset").length / fired.length;
    expect(resets).toBeGreaterThan(0.09);
    expect(resets).toBeLessThan(0.11);
    expect(fired.every((f) => f === "reset" || f === "hang")).toBe(true);
  });

  it("rules of another API's operations are left out; retryAfter replaces the documented header", () => {
    const injector = new FaultInjector(rules({ rules: [{ operation: "checkAccess", status: 503, retryAfter: 7 }] }), { validators: webdata, service: "webdata", seed: 1 });
    expect(injector.decide("startCrawl")).toBeUndefined();
    const entitled = new FaultInjector(rules({ rules: [{ operation: "checkAccess", status: 503, retryAfter: 7 }] }), { validators: entitlements, service: "entitlements", seed: 1 });
    expect(entitled.decide("checkAccess")!.answer!.headers["retry-after"]).toBe("7");
  });

  it("a rule whose status an operation it covers does not document is refused", () => {
    expect(() => new FaultInjector(rules({ rules: [{ status: 404 }] }), { validators: entitlements, service: "entitlements", seed: 1 })).toThrow(/finalizeLock documents no 404 answer/);
  });

  it("seedFor finds a seed that faults the first requests as asked", () => {
    const rules = parseFaults({ rules: [{ operation: "startCrawl", probability: 0.5, fault: "reset" }] });
    for (const pattern of [[true, false], [false, true, true], [true, true, false]]) {
      const seed = seedFor(rules, "webdata", "startCrawl", pattern);
      const injector = new FaultInjector(rules, { validators: webdata, service: "webdata", seed });
      expect(pattern.map(() => injector.decide("startCrawl") !== undefined)).toEqual(pattern);
    }
    expect(() => seedFor(parseFaults({ rules: [{ probability: 0, fault: "reset" }] }), "webdata", "startCrawl", [true])).toThrow(/no seed below 100000/);
  });

  it("latencies stay within their distribution and the 60 s bound", () => {
    const random = seededRandom(9);
    const uniform = Array.from({ length: 2000 }, () => sampleLatency({ min: 10, max: 20 }, random));
    expect(Math.min(...uniform)).toBe(10);
    expect(Math.max(...uniform)).toBe(20);
    const tail = Array.from({ length: 20001 }, () => sampleLatency({ median: 100, p99: 1000 }, random)).sort((a, b) => a - b);
    expect(tail[10000]).toBeGreaterThan(90);
    expect(tail[10000]).toBeLessThan(110);
    expect(tail[19800]).toBeGreaterThan(850);
    expect(tail[19800]).toBeLessThan(1150);
    expect(Math.max(...Array.from({ length: 2000 }, () => sampleLatency({ median: 50000, p99: 60000 }, random)))).toBeLessThanOrEqual(60000);
  });

  it("the log line names the service, the operation, the request and the rule", () => {
    expect(describeFault({ service: "entitlements", operationId: "checkAccess", method: "POST", path: "/v1/balances.check", rule: "down", latencyMs: 12, status: 503 })).toBe(
      'fault: entitlements checkAccess POST /v1/balances.check: rule "down": status 503, 12 ms latency',
    );
  });
});

describe("fault effects end with their connection", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server?.closeAllConnections();
    server = undefined;
  });

  /** Timers of at least a second that are neither fired nor cleared: the faults' own (the tests' are shorter). */
  function longTimers() {
    const pending = new Set<unknown>();
    const realSet = globalThis.setTimeout;
    const realClear = globalThis.clearTimeout;
    const set = vi.spyOn(globalThis, "setTimeout").mockImplementation(((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
      const handle = realSet(() => {
        pending.delete(handle);
        fn(...args);
      }, ms);
      if ((ms ?? 0) >= 1000) pending.add(handle);
      return handle;
    }) as typeof setTimeout);
    const clear = vi.spyOn(globalThis, "clearTimeout").mockImplementation((handle) => {
      pending.delete(handle);
      realClear(handle);
    });
    return {
      pending,
      restore: () => {
        set.mockRestore();
        clear.mockRestore();
      },
    };
  }

  async function serve(handler: (res: ServerResponse) => void): Promise<string> {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => handler(res));
    });
    return (await listen(server, 0, "127.0.0.1")).url;
  }

  /** One GET with its own connection; resolves with what the client saw, or aborts after `abortMs`. */
  function get(url: string, abortMs?: number): Promise<{ status?: number; body?: string; chunks: number; error?: string; ms: number }> {
    const started = Date.now();
    return new Promise((resolve) => {
      const req = request(url, { agent: false }, (res) => {
        let body = "";
        let chunks = 0;
        res.on("data", (c: Buffer) => ((body += c.toString()), chunks++));
        res.on("end", () => resolve({ status: res.statusCode, body, chunks, ms: Date.now() - started }));
        res.on("error", (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message, chunks, ms: Date.now() - started }));
      });
      req.on("error", (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message, chunks: 0, ms: Date.now() - started }));
      if (abortMs !== undefined) setTimeout(() => req.destroy(new Error("client gave up")), abortMs).unref();
      req.end();
    });
  }

  it("reset: the client sees ECONNRESET and no answer", async () => {
    const url = await serve((res) => resetConnection(res));
    expect((await get(url)).error).toBe("ECONNRESET");
  });

  it("hang: nothing is sent; the connection closes at the deadline, and a client that gives up first takes the timer with it", async () => {
    let deadline = 300;
    const url = await serve((res) => hangConnection(res, deadline));
    const cut = await get(url);
    expect(cut.status).toBeUndefined();
    expect(cut.error).toBe("ECONNRESET");
    expect(cut.ms).toBeGreaterThanOrEqual(290);
    deadline = 30_000;
    const timers = longTimers();
    try {
      const gaveUp = await Promise.all(Array.from({ length: 20 }, () => get(url, 50)));
      expect(gaveUp.every((outcome) => outcome.error === "client gave up")).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(timers.pending.size).toBe(0);
    } finally {
      timers.restore();
    }
  });

  it("latency: a client that gives up cancels the wait", async () => {
    let waited: boolean | undefined;
    const url = await serve((res) => void delayAnswer(res, 30_000).then((ok) => (waited = ok)));
    const timers = longTimers();
    try {
      await get(url, 50);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(waited).toBe(false);
      expect(timers.pending.size).toBe(0);
    } finally {
      timers.restore();
    }
  });

  it("slow body: the head at once, the body in pieces; what is left at the deadline goes at once", async () => {
    const body = Buffer.from(JSON.stringify({ allowed: true, customer_id: "cus_1", balance: null, flag: null }));
    let deadline = 30_000;
    const url = await serve((res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
      endSlowly(res, body, deadline);
    });
    const slow = await get(url);
    expect(slow.body).toBe(body.toString());
    expect(slow.chunks).toBeGreaterThanOrEqual(5);
    expect(slow.ms).toBeGreaterThanOrEqual(9 * SLOW_BODY_INTERVAL_MS - 50);
    deadline = 450;
    const hurried = await get(url);
    expect(hurried.body).toBe(body.toString());
    expect(hurried.ms).toBeLessThan(9 * SLOW_BODY_INTERVAL_MS - 50);
  });
});
