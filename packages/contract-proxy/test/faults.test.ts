// The same faults rules as the mock's, in front of a real implementation: each fired rule is an
// injected line of the report; what the proxy makes up is never judged as the upstream's answer.
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { OpenApiValidators, loadBundle, parseFaults } from "@api-contracts/contract-core";
import type { FaultEvent } from "@api-contracts/contract-core/server";
import { startContractProxy, type ContractProxy, type ContractProxyOptions } from "../src/index.js";
import { timedExchange } from "@api-contracts/dev-tools/testing/edge-clients";
import { entitlementsKey, fakeUpstream, json, runProxyCommand, type Upstream } from "./support.js";

const checkExample = (() => {
  const operation = new OpenApiValidators(loadBundle("entitlements")).walkedOperations().find((op) => op.operationId === "checkAccess")!;
  return operation.responses.find((r) => r.status === "200")!.media[0]!.examples[0]!.value as Record<string, unknown>;
})();
const check = JSON.stringify({ customer_id: "cus_123", feature_id: "messages" });
const dir = mkdtempSync(join(tmpdir(), "contract-proxy-faults-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.map((s) => s.close()));
  opened = [];
});

async function upstreamAnswering(answer: Parameters<typeof fakeUpstream>[0]): Promise<Upstream> {
  const upstream = await fakeUpstream(answer);
  opened.push(upstream);
  return upstream;
}

async function proxyWith(upstream: Upstream, rules: unknown[], options: Partial<ContractProxyOptions> = {}): Promise<ContractProxy> {
  const proxy = await startContractProxy({ service: "entitlements", upstream: upstream.url, faults: { rules: parseFaults({ rules }), seed: 3, ...options.faults }, ...options });
  opened.push(proxy);
  return proxy;
}

/** One check on its own connection; gives up after `abortMs` when given. */
const postCheck = (base: string, body = check, abortMs?: number) =>
  timedExchange(`${base}/v1/balances.check`, { body, headers: { authorization: `Bearer ${entitlementsKey}` }, ...(abortMs !== undefined ? { abortMs } : {}) });

const reportLines = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("injected answers are the proxy's, marked, and never the upstream's violations", () => {
  it("a status rule answers the operation's documented answer without reaching the upstream; the report marks it injected", async () => {
    const upstream = await upstreamAnswering(json(200, checkExample));
    const report = join(dir, "status.jsonl");
    const proxy = await proxyWith(upstream, [{ name: "checks down", operation: "checkAccess", status: 503 }], { strict: true, report });
    const answer = await postCheck(proxy.url);
    expect(answer.status).toBe(503);
    expect(answer.headers!["retry-after"]).toBe("1");
    expect(answer.headers!["x-contract-violations"]).toBe("0");
    expect(JSON.parse(answer.body!)).toMatchObject({ code: "service_unavailable" });
    expect(upstream.received).toHaveLength(0);
    expect(proxy.counts).toMatchObject({ exchanges: 1, violations: 0, injected: 1 });
    expect(reportLines(report)).toEqual([
      { time: expect.any(String), service: "entitlements", operationId: "checkAccess", method: "POST", path: "/v1/balances.check", injected: { rule: "checks down", latencyMs: 0, status: 503 } },
    ]);
  });

  it("what the client sent is still judged: a broken request under an injected answer is the client's violation", async () => {
    const upstream = await upstreamAnswering(json(200, checkExample));
    const proxy = await proxyWith(upstream, [{ status: 429 }]);
    const answer = await postCheck(proxy.url, JSON.stringify({ customer_id: "cus_1" }));
    expect(answer.status).toBe(429);
    expect(answer.headers!["retry-after"]).toBeUndefined();
    expect(answer.headers!["x-contract-violations"]).toBe("1");
    expect(proxy.violations.map((v) => [v.direction, v.status])).toEqual([["request", 429]]);
  });

  it("latency delays the forwarding; the upstream's answer is then judged as usual", async () => {
    const upstream = await upstreamAnswering(json(200, { allowed: "yes" }));
    const proxy = await proxyWith(upstream, [{ latency: 250 }]);
    const answer = await postCheck(proxy.url);
    expect(answer.status).toBe(200);
    expect(answer.ms).toBeGreaterThanOrEqual(245);
    expect(upstream.received).toHaveLength(1);
    expect(proxy.counts).toMatchObject({ violations: 1, injected: 1 });
    expect(proxy.violations[0]!.direction).toBe("response");
  });

  it("reset and hang give the client no answer and the upstream no request", async () => {
    const upstream = await upstreamAnswering(json(200, checkExample));
    const reset = await proxyWith(upstream, [{ fault: "reset" }]);
    expect((await postCheck(reset.url)).error).toBe("ECONNRESET");
    const hang = await proxyWith(upstream, [{ fault: "hang" }], { requestTimeout: 600 });
    const hung = await postCheck(hang.url);
    expect(hung.status).toBeUndefined();
    expect(hung.ms).toBeGreaterThanOrEqual(590);
    expect((await postCheck(hang.url, check, 100)).error).toBe("client gave up");
    expect(upstream.received).toHaveLength(0);
  });

  it("slow-body trickles the upstream's own answer, judged", async () => {
    const upstream = await upstreamAnswering(json(200, checkExample));
    const proxy = await proxyWith(upstream, [{ fault: "slow-body" }]);
    const slow = await postCheck(proxy.url);
    expect(JSON.parse(slow.body!)).toEqual(checkExample);
    expect(slow.chunks).toBeGreaterThanOrEqual(5);
    expect(slow.ms - slow.headMs!).toBeGreaterThanOrEqual(1000);
    expect(proxy.counts.violations).toBe(0);
  });

  it("a latency longer than the upstream's timeout plus the idle slack still ends in the answer, not a dropped socket", async () => {
    const upstream = await upstreamAnswering(json(200, checkExample));
    // Without faults the idle socket would close at 200 + 5,000 ms: the injected wait sends no byte for longer.
    const proxy = await proxyWith(upstream, [{ latency: 5_400 }], { upstreamTimeout: 200 });
    const answer = await postCheck(proxy.url);
    expect(answer.error).toBeUndefined();
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body!)).toEqual(checkExample);
  });

  it("a client that gives up during an injected latency is still recorded: its broken request is its violation, with status 0", async () => {
    const upstream = await upstreamAnswering(json(200, checkExample));
    const report = join(dir, "gave-up.jsonl");
    const proxy = await proxyWith(upstream, [{ latency: 2_000 }], { report });
    expect((await postCheck(proxy.url, JSON.stringify({ customer_id: "cus_1" }), 100)).error).toBe("client gave up");
    const until = Date.now() + 2_000;
    while (proxy.violations.length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(proxy.violations.map((v) => [v.direction, v.status])).toEqual([["request", 0]]);
    expect(proxy.counts).toMatchObject({ exchanges: 1, violations: 1, injected: 1 });
    expect(reportLines(report).map((line) => line.direction ?? "injected")).toEqual(["injected", "request"]);
    expect(proxy.coverage().operations.checkAccess).toMatchObject({ exchanges: 1, statuses: { seen: [] } });
    expect(upstream.received).toHaveLength(0);
  });

  it("slow-body on an answer that streams through unjudged is not applied, so not reported; its rule's latency still is", async () => {
    const upstream = await upstreamAnswering(json(200, checkExample));
    const report = join(dir, "slow-streamed.jsonl");
    const events: FaultEvent[] = [];
    const rules = [{ name: "slow", fault: "slow-body" }];
    // A judging limit under the answer's length and over the request's: the answer streams through.
    const proxy = await proxyWith(upstream, rules, { judgeLimit: 100, report, faults: { rules: parseFaults({ rules }), seed: 3, onFault: (e) => events.push(e) } });
    const streamed = await postCheck(proxy.url);
    expect(JSON.parse(streamed.body!)).toEqual(checkExample);
    expect(proxy.counts).toMatchObject({ injected: 0, notJudged: 1 });
    expect(events).toEqual([]);
    expect(reportLines(report).filter((line) => "injected" in line)).toEqual([]);

    const waited = [{ name: "slow and late", latency: 200, fault: "slow-body" }];
    const late = await proxyWith(upstream, waited, { judgeLimit: 100, faults: { rules: parseFaults({ rules: waited }), seed: 3, onFault: (e) => events.push(e) } });
    expect((await postCheck(late.url)).status).toBe(200);
    expect(late.counts.injected).toBe(1);
    expect(events).toEqual([expect.objectContaining({ rule: "slow and late", latencyMs: 200 })]);
    expect(events[0]!.fault).toBeUndefined();
  });

  it("the same seed gives the same sequence of faults", async () => {
    const upstream = await upstreamAnswering(json(200, checkExample));
    const rules = [
      { name: "down", probability: 0.3, status: 503 },
      { name: "reset", probability: 0.2, fault: "reset" },
    ];
    const sequence = async (seed: number) => {
      const events: FaultEvent[] = [];
      const proxy = await proxyWith(upstream, rules, { faults: { rules: parseFaults({ rules }), seed, onFault: (e) => events.push(e) } });
      const outcomes: string[] = [];
      for (let i = 0; i < 30; i++) {
        const outcome = await postCheck(proxy.url);
        outcomes.push(outcome.error ?? String(outcome.status));
      }
      return { outcomes, events: events.map((e) => e.rule) };
    };
    const first = await sequence(5);
    expect(await sequence(5)).toEqual(first);
    expect((await sequence(6)).outcomes).not.toEqual(first.outcomes);
    expect(new Set(first.outcomes)).toEqual(new Set(["200", "503", "ECONNRESET"]));
    expect(first.events.filter((rule) => rule === "down")).toHaveLength(first.outcomes.filter((o) => o === "503").length);
  });

  it("clients that give up on waits and hangs leave no socket behind, and the proxy still forwards", async () => {
    const upstream = await upstreamAnswering(json(200, checkExample));
    const proxy = await proxyWith(upstream, [{ probability: 0.5, fault: "hang" }, { latency: 1000 }], { requestTimeout: 800 });
    const openSockets = () => process.getActiveResourcesInfo().filter((kind) => kind === "TCPSocketWrap").length;
    const baseline = openSockets();
    await Promise.all(Array.from({ length: 30 }, (_, i) => postCheck(proxy.url, check, i % 2 === 0 ? 150 : undefined)));
    const until = Date.now() + 5000;
    while (openSockets() > baseline && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(openSockets()).toBeLessThanOrEqual(baseline);
    const clean = await proxyWith(upstream, [{ operation: "finalizeLock", fault: "reset" }]);
    expect((await postCheck(clean.url)).status).toBe(200);
  });
});

describe("closing with faults in flight", () => {
  it("close() returns at once with waits, hangs and slow bodies in flight, and nothing fails after", async () => {
    const upstream = await upstreamAnswering(json(200, checkExample));
    const proxy = await startContractProxy({ service: "entitlements", upstream: upstream.url, faults: { rules: parseFaults({ rules: [{ probability: 0.3, fault: "hang" }, { probability: 0.5, latency: 400 }, { fault: "slow-body" }] }), seed: 2 } });
    const inFlight = Array.from({ length: 12 }, () => postCheck(proxy.url));
    await new Promise((resolve) => setTimeout(resolve, 150));
    const started = Date.now();
    await proxy.close();
    expect(Date.now() - started).toBeLessThan(2000);
    const outcomes = await Promise.all(inFlight);
    expect(outcomes.every((outcome) => outcome.error !== undefined)).toBe(true);
    // Long enough for a wait the close did not clear to run out and fail loudly.
    await new Promise((resolve) => setTimeout(resolve, 500));
  });
});

describe("contract-proxy --faults", () => {
  const fileWith = (content: unknown) => {
    const file = join(dir, `faults-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(content));
    return file;
  };

  it("a faults file that is not one exits 2 naming the rule; a seed without a file too", async () => {
    for (const [args, message] of [
      [["--faults", fileWith({ rules: [{ fault: "reset" }, { operation: "startCrawl", fault: "hang" }] })], /rule 2 names "startCrawl", which is not an operation of the entitlements API/],
      [["--faults", fileWith({ rules: [{ status: 503, fault: "reset" }] })], /rule 1 has both fault and status/],
      [["--faults-seed", "4"], /--faults-seed only applies with --faults/],
    ] as Array<[string[], RegExp]>) {
      const proxy = runProxyCommand(["--service", "entitlements", "--upstream", "http://127.0.0.1:1", ...args]);
      const [code] = await once(proxy.child, "exit");
      expect(code, args.join(" ")).toBe(2);
      expect(proxy.err()).toMatch(message);
    }
  });

  it("logs the seed and each fired rule, and counts what it injected", async () => {
    const upstream = await upstreamAnswering(json(200, checkExample));
    const proxy = runProxyCommand(["--service", "entitlements", "--upstream", upstream.url, "--faults", fileWith({ rules: [{ name: "down", status: 503 }] }), "--faults-seed", "9"]);
    while (!proxy.out().includes("\n")) await once(proxy.child.stdout, "data");
    const url = proxy.out().split("\n")[0]!;
    expect((await postCheck(url)).status).toBe(503);
    proxy.child.kill("SIGTERM");
    await once(proxy.child, "exit");
    const lines = proxy.out().trimEnd().split("\n");
    expect([lines[0], lines.at(-1)]).toEqual([url, "1 exchange, 0 violations, 1 injected"]);
    // The 503 was the proxy's own: the coverage counts the request, and no status of the upstream's.
    expect(lines[1]).toMatch(/^coverage: 1 of \d+ operations exercised, 0 of \d+ documented statuses seen/);
    expect(proxy.err()).toMatch(/^faults: 1 rule from .*, seed 9 \(--faults-seed 9 repeats its draws\)$/m);
    expect(proxy.err()).toMatch(/^fault: entitlements checkAccess POST \/v1\/balances.check: rule "down": status 503$/m);
  });
});
