import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer } from "@api-contracts/mock-server";
import { ApiContract, OpenApiValidators, acceptsUrl, getApi, loadBundle, pathRegexProblem, shellQuote, totalWaitMs, type UrlRule, type XRule } from "@api-contracts/contract-core";
import { runContractTests, type Report } from "../src/index.js";
import { candidateRequestArbitrary, urlArbitrary, validRequestArbitrary, requestProblems, type GeneratedRequest, type GeneratorContext } from "../src/generate/arbitraries.js";
import { mutationsOf } from "../src/generate/mutations.js";
import { escapeXml } from "../src/junit.js";
import { curlOf } from "../src/checks/types.js";
import { runCli, startFakeTarget } from "./helpers.js";

const SERVICES = ["entitlements", "webdata"] as const;
const SEEDS = [1, 20261123, 987654321];

function generator(service: (typeof SERVICES)[number], now = Date.now): GeneratorContext {
  const document = loadBundle(service);
  const validators = new OpenApiValidators(document, { now });
  return { contract: new ApiContract(getApi(service), validators), document, validators, now, hints: () => undefined };
}

describe.each(SERVICES)("%s: generated requests against the spec-faithful mock", (service) => {
  let mock: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    mock = await startMockServer({ service });
  });
  afterAll(() => mock?.close());

  it.each(SEEDS)("no false alarm: --generate 200 with seed %i passes at schema level", async (seed) => {
    const report = await runContractTests({ service, baseUrl: mock.url, apiKey: `${getApi(service).key.prefix}0123456789abcdef`, generate: 200, seed });
    const failed = Object.values(report.operations).flatMap((group) => group.checks.filter((check) => !check.passed).map((check) => `${check.operation}/${check.check}: ${check.reason}`));
    expect(failed).toEqual([]);
    expect(report.generation).toMatchObject({ examples: 200, seed, stopped: false });
    // An operation whose every input the description accepts (a session list's status filter) has nothing to break, and no such check.
    const invalid = Object.values(report.operations).flatMap((group) => group.checks.filter((check) => check.check === "generated-invalid").map((check) => check.operation));
    if (service === "webdata") expect(invalid).not.toEqual(expect.arrayContaining(["listInteractSessions"]));
    const generated = Object.values(report.operations).flatMap((group) => group.checks.filter((check) => check.check.startsWith("generated-")));
    expect(generated.length).toBeGreaterThan(5);
    for (const check of generated) expect(check.examples, `${check.operation}/${check.check}`).toBe(200);
  });
});

describe.each(SERVICES)("%s: the generator", (service) => {
  const gen = generator(service);
  const operations = gen.validators.walkedOperations();

  it("makes valid requests by construction: the validator's filter refuses at most one candidate in ten", () => {
    for (const operation of operations) {
      const candidates = fc.sample(candidateRequestArbitrary(gen, operation), { numRuns: 60, seed: 7 });
      const refused = candidates.filter((request) => requestProblems(gen, operation, request).length > 0);
      expect(refused.length, `${operation.operationId}: ${refused.flatMap((r) => requestProblems(gen, operation, r)).slice(0, 3).join("; ")}`).toBeLessThanOrEqual(candidates.length / 10);
    }
  });

  it("the same seed makes the same requests", () => {
    const operation = operations.find((op) => op.requestBody)!;
    const strip = (value: unknown) => JSON.stringify(value, (key, v) => (key === "timestamp" || key === "expires_at" ? 0 : v));
    const first = fc.sample(validRequestArbitrary(gen, operation), { numRuns: 20, seed: 42 });
    const second = fc.sample(validRequestArbitrary(generator(service), operation), { numRuns: 20, seed: 42 });
    expect(strip(second)).toBe(strip(first));
  });

  it("each mutation breaks the request: the validator refuses four in five before any filter, and the filter keeps exactly those", () => {
    for (const operation of operations.filter((op) => op.requestBody)) {
      const [request] = fc.sample(validRequestArbitrary(gen, operation), { numRuns: 1, seed: 3 });
      const refusedByValidator = (r: typeof request) => requestProblems(gen, operation, r!).length > 0;
      const every = mutationsOf(gen, operation, request!, () => true);
      const refused = every.filter((m) => refusedByValidator(m.request));
      expect(refused.length, `${operation.operationId}: ${every.filter((m) => !refused.includes(m)).map((m) => `${m.kind} ${m.where}`).join("; ")}`).toBeGreaterThanOrEqual(every.length * 0.8);
      const kept = mutationsOf(gen, operation, request!, refusedByValidator);
      expect(kept.map((m) => `${m.kind} ${m.where}`)).toEqual(refused.map((m) => `${m.kind} ${m.where}`));
      expect(kept.length, operation.operationId).toBeGreaterThan(3);
      // Web Data's bodies refuse unknown members; Entitlements' ignore them, as live, so adding one breaks nothing.
      if (service === "webdata") expect(new Set(kept.map((m) => m.kind))).toContain("unknown-member");
      else expect(new Set(kept.map((m) => m.kind))).not.toContain("unknown-member");
    }
  });
});

describe("the generator honours x-rules with the validators' clock", () => {
  it("a track timestamp is never in the future and a lock's expires_at at most 24 h ahead, by an injected clock", () => {
    const now = Date.parse("2030-01-01T00:00:00Z");
    const gen = generator("entitlements", () => now);
    const track = gen.validators.walkedOperations().find((op) => op.operationId === "trackUsage")!;
    const check = gen.validators.walkedOperations().find((op) => op.operationId === "checkAccess")!;
    const timestamps = fc.sample(validRequestArbitrary(gen, track), { numRuns: 300, seed: 5 }).map((r) => (r.body as { timestamp?: number }).timestamp).filter((t) => t !== undefined);
    expect(timestamps.length).toBeGreaterThan(20);
    for (const t of timestamps) expect(t).toBeLessThanOrEqual(now);
    const expiries = fc.sample(validRequestArbitrary(gen, check), { numRuns: 300, seed: 5 }).map((r) => (r.body as { lock?: { expires_at?: number } }).lock?.expires_at).filter((t) => t !== undefined);
    expect(expiries.length).toBeGreaterThan(10);
    for (const t of expiries) expect(t).toBeLessThanOrEqual(now + 86_400_000);
  });

  it("waitFor is at most half of timeout in every generated crawl that sends both", () => {
    const gen = generator("webdata");
    const start = gen.validators.walkedOperations().find((op) => op.operationId === "startCrawl")!;
    let seen = 0;
    for (const request of fc.sample(validRequestArbitrary(gen, start), { numRuns: 300, seed: 9 })) {
      const options = (request.body as { scrapeOptions?: { waitFor?: number; timeout?: number } }).scrapeOptions;
      // The rule binds only when both are sent, as the live service reads it.
      if (options?.waitFor === undefined || options.timeout === undefined) continue;
      seen++;
      expect(options.waitFor).toBeLessThanOrEqual(0.5 * options.timeout);
    }
    expect(seen).toBeGreaterThan(10);
  });
});

/** The rules a schema of the bundle carries, by component name. */
function rulesOf(document: ReturnType<typeof loadBundle>, schema: string): XRule[] {
  return ((document.components as Record<string, Record<string, { "x-rules"?: XRule[] }>>).schemas![schema]!["x-rules"] ?? []) as XRule[];
}

describe("the generator keeps the live service's URL, length and format rules, and breaks each on purpose", () => {
  const gen = generator("webdata");
  const start = gen.validators.walkedOperations().find((op) => op.operationId === "startCrawl")!;
  const crawlUrl = rulesOf(gen.document, "CrawlRequest").find((r): r is UrlRule => r.rule === "url" && r.member === "url")!;
  const webhookUrl = rulesOf(gen.document, "Webhook").find((r): r is UrlRule => r.rule === "url")!;

  it("a generated run of 1000 crawl requests holds no url (nor webhook url) the bundle's rule refuses", () => {
    const requests = fc.sample(validRequestArbitrary(gen, start), { numRuns: 1000, seed: 20261123 });
    const urls = requests.map((r) => (r.body as { url: string }).url);
    expect(urls.filter((url) => !acceptsUrl(crawlUrl, url))).toEqual([]);
    const hooks = requests.map((r) => (r.body as { webhook?: { url?: unknown } }).webhook?.url).filter((url): url is string => typeof url === "string");
    expect(hooks.length).toBeGreaterThan(50);
    expect(hooks.filter((url) => !acceptsUrl(webhookUrl, url))).toEqual([]);
    // Every form the rule accepts is made: no scheme, an IP address, an internationalised host.
    expect(urls.some((url) => !url.includes("://"))).toBe(true);
    expect(urls.some((url) => /\/\/\d+\.\d+\.\d+\.\d+/.test(url))).toBe(true);
    expect(urls.some((url) => /[^\x00-\x7f]/.test(url))).toBe(true);
  });

  it("makes URLs the rules accept by construction: 1000 of each, before any filter", () => {
    for (const rule of [crawlUrl, webhookUrl]) {
      const refused = fc.sample(urlArbitrary(rule), { numRuns: 1000, seed: 11 }).filter((url) => !acceptsUrl(rule, url));
      expect(refused, rule.description).toEqual([]);
    }
  });

  it("keeps UTF-16 lengths, wait totals and checkPromptInjection on json only in every generated crawl", () => {
    const astral = (s: string) => [...s].length !== s.length;
    let longAstral = 0;
    for (const request of fc.sample(validRequestArbitrary(gen, start), { numRuns: 500, seed: 3 })) {
      const body = request.body as { prompt?: string; scrapeOptions?: { profile?: { name?: string }; actions?: unknown[]; formats?: unknown[] } };
      for (const text of [body.prompt, body.scrapeOptions?.profile?.name]) if (text !== undefined && astral(text) && text.length > 20) longAstral++;
      expect(body.prompt?.length ?? 0).toBeLessThanOrEqual(10_000);
      expect(body.scrapeOptions?.profile?.name?.length ?? 0).toBeLessThanOrEqual(128);
      expect(totalWaitMs(body.scrapeOptions?.actions ?? [], 1000)).toBeLessThanOrEqual(60_000);
      for (const format of body.scrapeOptions?.formats ?? []) {
        if (typeof format === "object" && format !== null && (format as { type?: string }).type === "deterministicJson") expect(format).not.toHaveProperty("checkPromptInjection");
      }
    }
    expect(longAstral).toBeGreaterThan(0);
  });

  it("every includePaths/excludePaths pattern of 500 generated crawls compiles in Firecrawl's crawler and as a JavaScript RegExp", () => {
    const patterns = fc
      .sample(validRequestArbitrary(gen, start), { numRuns: 500, seed: 35 })
      .flatMap((r) => [...((r.body as { includePaths?: string[] }).includePaths ?? []), ...((r.body as { excludePaths?: string[] }).excludePaths ?? [])]);
    expect(patterns.length).toBeGreaterThan(100);
    expect(patterns.filter((pattern) => pathRegexProblem(pattern) !== undefined)).toEqual([]);
    // Constructs the two engines share are made, not only plain literals.
    for (const shared of ["{1,3}", "(?:", "(?<slug>", "[[:alpha:]]", "ü"]) expect(patterns.some((pattern) => pattern.includes(shared)), shared).toBe(true);
  });

  it("generated-invalid breaks the path-regex rule with look-around, a back-reference, a Unicode class, non-ASCII in a class and inline flags", () => {
    const request: GeneratedRequest = { path: {}, query: {}, headers: {}, body: { url: "https://docs.example.com", includePaths: ["^/blog/.*$"], excludePaths: [] } };
    expect(requestProblems(gen, start, request)).toEqual([]);
    const mutations = mutationsOf(gen, start, request, (r) => requestProblems(gen, start, r).length > 0);
    const lists = (member: string) => mutations.filter((m) => m.where === `body /${member}` && m.kind === "x-rules").map((m) => (m.request.body as Record<string, string[]>)[member]);
    expect(lists("includePaths")).toEqual(expect.arrayContaining([["^/blog/.*$", "(?=a)"], ["^/blog/.*$", "(a)\\1"], ["^/blog/.*$", "\\p{L}"], ["^/blog/.*$", "[é]"], ["^/blog/.*$", "(?i)blog"]]));
    expect(lists("excludePaths")).toContainEqual(["/api/{id}"]);
  });

  it("generated-invalid breaks the url rule, a UTF-16 length, the wait total by a selector wait and checkPromptInjection on deterministicJson", () => {
    const request: GeneratedRequest = {
      path: {},
      query: {},
      headers: {},
      body: { url: "https://docs.example.com", prompt: "docs", webhook: { url: "https://hooks.example.com/x" }, scrapeOptions: { profile: { name: "p" }, actions: [{ type: "wait", milliseconds: 10 }], formats: [{ type: "deterministicJson", prompt: "x" }] } },
    };
    expect(requestProblems(gen, start, request)).toEqual([]);
    const invalid = (r: GeneratedRequest) => requestProblems(gen, start, r).length > 0;
    const mutations = mutationsOf(gen, start, request, invalid);
    const at = (where: string) => mutations.filter((m) => m.where === where && m.kind === "x-rules").map((m) => m.request.body as Record<string, unknown>);
    const crawlUrls = at("body /url").map((b) => b.url);
    expect(crawlUrls).toEqual(expect.arrayContaining(["0.0.260.0", "a\uD7A4a.0.\u0500A", "localhost:8080", "例子.中国", "http://http://example.com", "image_0001.jpg"]));
    expect(at("body /webhook/url").map((b) => (b.webhook as { url: string }).url)).toEqual(expect.arrayContaining(["http://0.0.260.0/", "http://exa mple.com/"]));
    expect(at("body /prompt").map((b) => (b.prompt as string).length)).toContain(10_002);
    expect(at("body /scrapeOptions/profile/name").map((b) => ((b.scrapeOptions as { profile: { name: string } }).profile.name.length))).toContain(130);
    expect(at("body /scrapeOptions/actions").map((b) => (b.scrapeOptions as { actions: unknown[] }).actions)).toContainEqual([{ type: "wait", milliseconds: 59001 }, { type: "wait", selector: "#main" }]);
    expect(mutations.some((m) => m.where === "body /scrapeOptions/formats/0/checkPromptInjection" && m.kind === "unknown-member")).toBe(true);
  });
});

describe("output", () => {
  it("escapeXml escapes markup and replaces characters XML cannot carry", () => {
    expect(escapeXml(`<a href="x">&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
    expect(escapeXml("bell\u0007 nul\u0000 lone\uD800 ok\t\n")).toBe("bell\uFFFD nul\uFFFD lone\uFFFD ok\t\n");
    expect(escapeXml("emoji \u{1F600} stays")).toBe("emoji \u{1F600} stays");
  });

  it("a curl command names the key as $API_KEY, carries the run's headers and quotes the body for the shell", () => {
    const ctx = { shownBaseUrl: "http://127.0.0.1:1", headers: { "X-Tenant": "acme" } };
    const curl = curlOf(ctx, { method: "POST", path: "/v2/crawl/{id}" }, { path: { id: "a b" }, query: { q: "1&2" }, headers: { "x-api-version": "2.0.0" }, body: { text: "it's" } });
    expect(curl).toBe(`curl -sS 'http://127.0.0.1:1/v2/crawl/a%20b?q=1%262' -H "Authorization: Bearer $API_KEY" -H 'X-Tenant: acme' -H 'x-api-version: 2.0.0' -H 'Content-Type: application/json' --data-raw '{"text":"it'\\''s"}'`);
    expect(shellQuote("a'b")).toBe(`'a'\\''b'`);
  });
});

describe("command line with --generate", () => {
  let dir: string;
  let mock: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "contract-generate-"));
    mock = await startMockServer({ service: "webdata" });
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await mock?.close();
  });

  it("prints the seed, writes JUnit XML with one test case per check, and prints nothing else when not on a terminal", async () => {
    const junit = path.join(dir, "report.xml");
    const reportFile = path.join(dir, "report.json");
    const run = await runCli(["--service", "webdata", "--base-url", mock.url, "--api-key", "fc-0123456789abcdef0123456789abcdef", "--generate", "5", "--seed", "77", "--junit", junit, "--report", reportFile]);
    expect(run.code, run.out.join("\n")).toBe(0);
    expect(run.out[0]).toBe("seed 77 (--seed 77 repeats this run's generated requests)");
    const closing = run.out.findIndex((line) => line.startsWith("generation:"));
    expect(run.out[closing]).toMatch(/^generation: \d+ checks, \d+ examples, seed 77$/);
    expect(run.out[closing + 1]).toMatch(/^coverage: /);
    expect(run.out.filter((line) => !/^(PASS|seed|generation:|coverage:| {2}\S)/.test(line))).toEqual([run.out.at(-1)]);
    expect(run.err).toEqual([]);
    const xml = readFileSync(junit, "utf8");
    const report = JSON.parse(readFileSync(reportFile, "utf8")) as Report;
    expect((xml.match(/<testcase /g) ?? []).length).toBe(report.passed + report.failed);
    expect(xml).toContain('name="generated-valid"');
    expect(report.generation?.seed).toBe(77);
  });

  it("refuses a seed or example count that is not a whole number", async () => {
    expect((await runCli(["--service", "webdata", "--base-url", mock.url, "--api-key", "k", "--generate", "many"])).code).toBe(2);
    expect((await runCli(["--service", "webdata", "--base-url", mock.url, "--api-key", "k", "--generate", "3", "--seed", "1.5"])).code).toBe(2);
  });

  it("a failure reports a reduced request, its curl (key hidden) and the seed, in the JUnit file too", async () => {
    // Accepts everything with 200 and an empty object: every generated check must fail.
    const target = await startFakeTarget((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
    try {
      const junit = path.join(dir, "failing.xml");
      const key = "fc-secret0secret0secret0secret000";
      const run = await runCli(["--service", "webdata", "--base-url", target.url, "--api-key", key, "--generate", "20", "--seed", "5", "--junit", junit]);
      expect(run.code).toBe(1);
      const text = run.out.join("\n");
      expect(text).toContain("FAIL startCrawl generated-invalid");
      expect(text).toMatch(/reduced request: \{/);
      expect(text).toContain("     seed: 5");
      expect(text).toContain('"Authorization: Bearer $API_KEY"');
      expect(text).not.toContain(key);
      const xml = readFileSync(junit, "utf8");
      expect(xml).toMatch(/<failure message="[^"]*">[^<]*curl -sS &apos;http:\/\/127\.0\.0\.1:\d+\/v2\/crawl&apos; -H &quot;Authorization: Bearer \$API_KEY&quot;/);
      expect(xml).not.toContain(key);
    } finally {
      await target.close();
    }
  });

  it("--max-time stops generation cleanly and says how far it got", async () => {
    // Slow enough that 100000 examples cannot fit in the budget; the hand-picked checks do.
    const target = await startFakeTarget((_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("{}");
      }, 5);
    });
    try {
      const report = await runContractTests({ service: "webdata", baseUrl: target.url, apiKey: "k", generate: 100_000, seed: 3, maxTimeMs: 4_000 });
      expect(report.generation?.stopped).toBe(true);
      expect(report.generation?.summary).toMatch(/^generation stopped at --max-time \(4000 ms\): \d+ of \d+ generated checks reached, \d+ examples sent; seed 3$/);
      expect((report.skipped ?? 0) + report.passed + report.failed).toBeGreaterThan(0);
    } finally {
      await target.close();
    }
  });
});
