// --known-differences: a violation whose every error an accepted entry explains is reported as
// known, is not counted and passes through strict mode; an entry that matched nothing is stale.
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, onTestFinished } from "vitest";
import { startContractProxy, type ContractProxy, type KnownDifference } from "../src/index.js";
import { fakeUpstream, json, postJson, runProxyCommand, send, webdataKey, type Upstream } from "./support.js";

const auth = { authorization: `Bearer ${webdataKey}` };
// What a self-hosted Firecrawl answers: token usage with `remainingTokens` only.
const tokenUsage = { success: true, data: { remainingTokens: 99999999 } };
const started = { success: true, id: "0b5f4c2e-1d0a-4e8e-9a55-6f4a2d9b1c3e", url: "https://example.com" };
const tokenUsageKnown: KnownDifference = { operation: "getTokenUsage", check: "response", reason: "200 body/data/", why: "self-hosted: data holds remainingTokens only" };
const stale: KnownDifference = { operation: "cancelCrawl", check: "response", reason: "404 body", why: "fixed since" };

let opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.map((s) => s.close()));
  opened = [];
});

async function firecrawlLike(): Promise<Upstream> {
  const upstream = await fakeUpstream((req, res) => json(200, req.url!.startsWith("/v2/team/") ? tokenUsage : started)(req, res));
  opened.push(upstream);
  return upstream;
}

async function proxyWith(upstream: Upstream, knownDifferences: KnownDifference[], extra: { report?: string } = {}): Promise<ContractProxy> {
  const proxy = await startContractProxy({ service: "webdata", upstream: upstream.url, strict: true, knownDifferences, ...extra });
  opened.push(proxy);
  return proxy;
}

describe("contract-proxy --known-differences", () => {
  it("a listed violation is reported as known with its why, not counted, and passes strict mode unreplaced", async () => {
    const upstream = await firecrawlLike();
    const reportDir = mkdtempSync(join(tmpdir(), "contract-proxy-known-"));
    onTestFinished(() => rmSync(reportDir, { recursive: true, force: true }));
    const report = join(reportDir, "report.jsonl");
    const proxy = await proxyWith(upstream, [tokenUsageKnown, stale], { report });
    const reply = await send(proxy.url, "GET", "/v2/team/token-usage", auth);
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual(tokenUsage);
    expect(reply.headers["x-contract-violations"]).toBe("0");
    expect(proxy.counts).toMatchObject({ exchanges: 1, violations: 0, known: 1 });
    expect(proxy.violations).toHaveLength(1);
    expect(proxy.violations[0]).toMatchObject({ operationId: "getTokenUsage", direction: "response", known: [tokenUsageKnown.why] });
    expect(proxy.stale()).toEqual([stale]);

    await proxy.close();
    opened = opened.filter((s) => s !== proxy);
    const lines = readFileSync(report, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ operationId: "getTokenUsage", known: [tokenUsageKnown.why] });
    expect(lines[1]).toMatchObject({ service: "webdata", stale });
  });

  it("without the entry the same answer is a violation, replaced by a 502 in strict mode", async () => {
    const proxy = await proxyWith(await firecrawlLike(), [stale]);
    const reply = await send(proxy.url, "GET", "/v2/team/token-usage", auth);
    expect(reply.status).toBe(502);
    expect(proxy.counts).toMatchObject({ violations: 1, known: 0 });
    expect(proxy.violations[0]!.known).toBeUndefined();
  });

  it("a violation only some of whose errors are listed stays a violation", async () => {
    const partly: KnownDifference = { ...tokenUsageKnown, reason: "200 body/data/planTokens is required" };
    const proxy = await proxyWith(await firecrawlLike(), [partly]);
    const reply = await send(proxy.url, "GET", "/v2/team/token-usage", auth);
    expect(reply.status).toBe(502);
    expect(proxy.counts).toMatchObject({ violations: 1, known: 0 });
    expect(proxy.stale()).toEqual([]);
  });

  it("a listed request violation reaches the upstream in strict mode instead of being refused; the check names the direction", async () => {
    const upstream = await firecrawlLike();
    const bogus: KnownDifference = { operation: "startCrawl", check: "request", reason: "body/bogus is not a documented member", why: "our client sends it" };
    const asResponse: KnownDifference = { ...bogus, check: "response" };
    const proxy = await proxyWith(upstream, [bogus, asResponse]);
    const reply = await postJson(proxy.url, "/v2/crawl", { url: "https://example.com", bogus: 1 }, auth);
    expect(reply.status).toBe(200);
    expect(upstream.received).toHaveLength(1);
    expect(proxy.counts).toMatchObject({ violations: 0, known: 1 });
    expect(proxy.stale()).toEqual([asResponse]);
  });
});

describe("the contract-proxy command with --known-differences", () => {
  const dir = mkdtempSync(join(tmpdir(), "contract-proxy-known-cli-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const listFile = (name: string, content: unknown) => {
    const file = join(dir, name);
    writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
    return file;
  };
  const run = runProxyCommand;

  it("reports a known violation with its why, counts it apart and lists a stale entry on stderr when it stops", async () => {
    const upstream = await firecrawlLike();
    const proxy = run(["--service", "webdata", "--upstream", upstream.url, "--strict", "--known-differences", listFile("list.json", [tokenUsageKnown, stale])]);
    while (!proxy.out().includes("\n")) await once(proxy.child.stdout, "data");
    const url = proxy.out().split("\n")[0]!;
    expect((await send(url, "GET", "/v2/team/token-usage", auth)).status).toBe(200);
    proxy.child.kill("SIGTERM");
    const [code] = await once(proxy.child, "exit");
    expect(code).toBe(0);
    expect(proxy.out().split("\n").slice(-2)).toEqual(["1 exchange, 0 violations, 1 known", ""]);
    expect(proxy.err()).toMatch(/^known: GET \/v2\/team\/token-usage 200 getTokenUsage response: body\/data\/planTokens is required \(and 2 more\) \(known difference: self-hosted: data holds remainingTokens only\)$/m);
    expect(proxy.err()).toContain(`stale known difference: cancelCrawl response "404 body" matched no violation (fixed since)`);
    expect(proxy.err()).toMatch(/^known differences: 1 violation known, 1 of 2 entries stale$/m);
  });

  it("refuses a file that is not a list of entries with exit 2, naming the fault", async () => {
    for (const [content, said] of [
      ["{", /--known-differences .*bad\.json is not JSON/],
      [{ operation: "x" }, /must be a JSON array of \{operation, check, reason, why\}/],
      [[{ ...tokenUsageKnown, why: " " }], /entry 0 needs a non-empty string why/],
      [[{ ...tokenUsageKnown, kind: "version" }], /entry 0 has unknown member kind/],
    ] as const) {
      const proxy = run(["--service", "webdata", "--upstream", "http://127.0.0.1:1", "--known-differences", listFile("bad.json", content)]);
      const [code] = await once(proxy.child, "exit");
      expect(code).toBe(2);
      expect(proxy.err()).toMatch(said);
      expect(proxy.out()).toBe("");
    }
    const missing = run(["--service", "webdata", "--upstream", "http://127.0.0.1:1", "--known-differences", join(dir, "absent.json")]);
    expect((await once(missing.child, "exit"))[0]).toBe(2);
    expect(missing.err()).toMatch(/absent\.json cannot be read/);
  });
});
