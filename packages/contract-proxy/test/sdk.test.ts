import Firecrawl from "@mendable/firecrawl-js";
import { Autumn } from "autumn-js";
import { createEntitlementsClient } from "@api-contracts/entitlements-client";
import { createWebdataClient } from "@api-contracts/webdata-client";
import { startMockServer } from "@api-contracts/mock-server";
import { defaultFixtures, startReferenceServer } from "@api-contracts/reference-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startContractProxy, type ContractProxy } from "../src/index.js";

interface Stack {
  webdata: ContractProxy;
  entitlements: ContractProxy;
  close(): Promise<void>;
}

async function behindProxies(start: (service: "webdata" | "entitlements") => Promise<{ url: string; close(): Promise<void> }>): Promise<Stack> {
  const [web, ent] = await Promise.all([start("webdata"), start("entitlements")]);
  const [webdata, entitlements] = await Promise.all([
    startContractProxy({ service: "webdata", upstream: web.url }),
    startContractProxy({ service: "entitlements", upstream: ent.url }),
  ]);
  return { webdata, entitlements, close: async () => void (await Promise.all([webdata.close(), entitlements.close(), web.close(), ent.close()])) };
}

const upstreams = {
  "the mock": { start: (service: "webdata" | "entitlements") => startMockServer({ service }), keys: { webdata: "fc-0123456789abcdef0123456789abcdef", entitlements: "am_sk_test_0123456789" }, customer: "cus_123" },
  "the reference server": {
    start: (service: "webdata" | "entitlements") => startReferenceServer({ service }),
    keys: defaultFixtures.api_keys,
    customer: defaultFixtures.entitlements.customer_id,
  },
};

for (const [name, upstream] of Object.entries(upstreams)) {
  describe(`through the proxy in front of ${name}, the official SDKs and the generated clients break no rule`, () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await behindProxies(upstream.start);
    });
    afterAll(async () => stack?.close());

    it("@mendable/firecrawl-js: crawl, cancel, token and credit usage, browsers and a monitor", async () => {
      const firecrawl = new Firecrawl({ apiKey: upstream.keys.webdata, apiUrl: stack.webdata.url });
      const started = await firecrawl.startCrawl("https://example.com", { limit: 5, scrapeOptions: { formats: ["markdown"] } });
      expect(started.id).toMatch(/^[0-9a-f-]{36}$/);
      await expect(firecrawl.cancelCrawl(started.id)).resolves.toBe(true);
      expect((await firecrawl.getTokenUsage()).remainingTokens).toEqual(expect.any(Number));
      expect((await firecrawl.getCreditUsageHistorical(true)).periods.length).toBeGreaterThan(0);
      expect(Array.isArray((await firecrawl.listBrowsers({ status: "active" })).sessions)).toBe(true);
      expect((await firecrawl.getMonitor(defaultFixtures.webdata.monitor_id)).id).toEqual(expect.any(String));
      expect(stack.webdata.violations).toEqual([]);
      // Without a key, the request is what breaks the contract; the upstream's 401 is its documented answer.
      await expect(new Firecrawl({ apiKey: "", apiUrl: stack.webdata.url }).getTokenUsage()).rejects.toMatchObject({ status: 401 });
      expect(stack.webdata.violations).toMatchObject([{ operationId: "getTokenUsage", direction: "request", status: 401, errors: [{ in: "header", pointer: "/authorization", keyword: "authorization" }] }]);
      expect(stack.webdata.counts.exchanges).toBeGreaterThanOrEqual(7);
    });

    it("@mendable/firecrawl-js: every crawl option its types offer that the live v2 body declares breaks no rule", async () => {
      const firecrawl = new Firecrawl({ apiKey: upstream.keys.webdata, apiUrl: stack.webdata.url });
      const before = stack.webdata.counts.exchanges;
      const seen = stack.webdata.violations.length;
      await firecrawl.startCrawl("example.com/docs", {
        prompt: "Only the API reference",
        excludePaths: ["^/blog/.*"],
        includePaths: ["^/docs/.*"],
        maxDiscoveryDepth: 2,
        sitemap: "only",
        ignoreQueryParameters: true,
        deduplicateSimilarURLs: false,
        limit: 20,
        crawlEntireDomain: true,
        allowExternalLinks: false,
        allowSubdomains: true,
        robotsUserAgent: "AcmeBot/1.0",
        delay: 2,
        maxConcurrency: 2,
        webhook: { url: "https://hooks.example.com/crawl", headers: { "X-Token": "t" }, metadata: { run: "1" }, events: ["completed"] },
        regexOnFullURL: true,
        zeroDataRetention: false,
        integration: "zapier",
        scrapeOptions: {
          formats: ["markdown", "rawHtml", "links", "images", "summary", "branding", "product", "menu", "audio", "video",
            { type: "json", prompt: "Price", schema: { type: "object", properties: { price: { type: "number" } } } },
            { type: "changeTracking", modes: ["git-diff", "json"], prompt: "Changes", tag: "daily" },
            { type: "screenshot", fullPage: true, quality: 80, viewport: { width: 1280, height: 800 } },
            { type: "attributes", selectors: [{ selector: "a", attribute: "href" }] },
            { type: "question", question: "What does it cost?" },
            { type: "highlights", query: "pricing" }],
          headers: { Cookie: "a=b" },
          includeTags: ["article"],
          excludeTags: ["nav"],
          onlyMainContent: false,
          timeout: 400000,
          waitFor: 2000,
          mobile: true,
          parsers: [{ type: "pdf", mode: "ocr", maxPages: 10 }, "image"],
          actions: [{ type: "wait", milliseconds: 1000 }, { type: "wait", selector: "#main" }, { type: "click", selector: "#more" }, { type: "scroll", direction: "down" }, { type: "scrape" }],
          location: { country: "us", languages: ["en-US"] },
          skipTlsVerification: true,
          removeBase64Images: false,
          fastMode: true,
          blockAds: false,
          proxy: "stealth",
          maxAge: 3600000,
          minAge: 0,
          storeInCache: false,
          lockdown: false,
          redactPII: { mode: "aggressive", entities: ["EMAIL", "PHONE"], replaceStyle: "mask" },
          profile: { name: "shop-login", saveChanges: false },
        },
      });
      await firecrawl.startCrawl("https://example.com", { scrapeOptions: { formats: ["html"], redactPII: true, parsers: [] } });
      expect(stack.webdata.counts.exchanges - before).toBe(2);
      expect(stack.webdata.violations.slice(seen)).toEqual([]);
    });

    it("autumn-js: check with a lock, track, finalize", async () => {
      const autumn = new Autumn({ secretKey: upstream.keys.entitlements, serverURL: stack.entitlements.url });
      const decision = await autumn.check({ customerId: upstream.customer, featureId: "messages", requiredBalance: 1, lock: { lockId: "proxy-lock", enabled: true } });
      expect(decision.allowed).toBe(true);
      expect((await autumn.track({ customerId: upstream.customer, featureId: "messages", value: 1 })).value).toEqual(expect.any(Number));
      expect((await autumn.balances.finalize({ lockId: "proxy-lock", action: "confirm" })).success).toBe(true);
      expect(stack.entitlements.violations).toEqual([]);
    });

    it("autumn-js: every option its types offer for check, track and finalize, a negative required balance included, breaks no rule", async () => {
      const autumn = new Autumn({ secretKey: upstream.keys.entitlements, serverURL: stack.entitlements.url, xApiVersion: "2.4.0" });
      const before = stack.entitlements.counts.exchanges;
      const base = { customerId: upstream.customer, featureId: "messages" };
      const expiresAt = Date.now() + 60_000;
      await autumn.check({ ...base, entityId: "seat_ada", requiredBalance: 2, properties: { model: "m", nested: { depth: [1, "two"] } }, withPreview: true });
      await autumn.check({ ...base, requiredBalance: 0.5, sendEvent: true, properties: { run: 1 } });
      await autumn.check({ ...base, requiredBalance: -1 });
      await autumn.check({ ...base, requiredBalance: 2, lock: { lockId: "sdk-lock-a", enabled: true, expiresAt, overageBehavior: "cap" } });
      await autumn.check({ ...base, requiredBalance: 1, lock: { lockId: "sdk-lock-b", enabled: true, overageBehavior: "overflow" } });
      await autumn.track({ ...base, entityId: "seat_ada", value: 2.5, properties: { model: "m" }, timestamp: Date.now() - 60_000, overageBehavior: "cap", async: false });
      await autumn.track({ customerId: upstream.customer, eventName: "message.sent", value: -1, overageBehavior: "overflow" });
      await autumn.track({ ...base, async: true });
      await autumn.track({ ...base, value: 1, lock: { lockId: "sdk-lock-c", enabled: true, expiresAt } });
      await autumn.balances.finalize({ lockId: "sdk-lock-a", action: "confirm", overrideValue: 1.5, properties: { cost: 1.5 } });
      await autumn.balances.finalize({ lockId: "sdk-lock-b", action: "release" });
      await autumn.balances.finalize({ lockId: "sdk-lock-c", action: "confirm", overrideValue: -1 });
      expect(stack.entitlements.violations).toEqual([]);
      expect(stack.entitlements.counts.exchanges - before).toBe(12);
    });

    it("the generated clients: every answer carries x-contract-violations: 0", async () => {
      const entitlements = createEntitlementsClient({ apiKey: upstream.keys.entitlements, baseUrl: stack.entitlements.url });
      const check = await entitlements.POST("/v1/balances.check", { body: { customer_id: upstream.customer, feature_id: "messages" } });
      expect(check.data?.allowed).toBe(true);
      expect(check.response.headers.get("x-contract-violations")).toBe("0");
      const unknown = await entitlements.POST("/v1/balances.finalize", { body: { lock_id: "no-such-lock", action: "release" } });
      expect(unknown.response.headers.get("x-contract-violations")).toBe("0");

      const webdata = createWebdataClient({ apiKey: upstream.keys.webdata, baseUrl: stack.webdata.url });
      const seen = stack.webdata.violations.length;
      const crawl = await webdata.POST("/v2/crawl", { body: { url: "https://example.com", limit: 10 } });
      expect(crawl.data?.id).toEqual(expect.any(String));
      expect(crawl.response.headers.get("x-contract-violations")).toBe("0");
      const monitor = await webdata.GET("/v2/monitor/{monitorId}", { params: { path: { monitorId: defaultFixtures.webdata.monitor_id } } });
      expect(monitor.response.headers.get("x-contract-violations")).toBe("0");
      const invalid = await webdata.POST("/v2/crawl", { body: { url: "https://example.com", delay: 61 } });
      expect(invalid.response.status).toBe(400);

      // The invalid crawl is the client's own doing: reported as a request violation, its 400 answer is documented.
      expect(stack.webdata.violations.slice(seen).map((v) => [v.operationId, v.direction, v.errors.map((e) => e.pointer)])).toEqual([["startCrawl", "request", ["/delay"]]]);
      expect(stack.entitlements.violations).toEqual([]);
    });
  });
}
