import Firecrawl from "@mendable/firecrawl-js";
import { Autumn } from "autumn-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type RunningServer } from "../src/index.js";

const id = "3c9ba5a4-2b7e-4a59-a3b9-9d4d0f6a1b2c";
let web: RunningServer;
let ent: RunningServer;
let firecrawl: Firecrawl;
let autumn: Autumn;

beforeAll(async () => {
  [web, ent] = await Promise.all([startMockServer({ service: "webdata" }), startMockServer({ service: "entitlements" })]);
  firecrawl = new Firecrawl({ apiKey: "fc-0123456789abcdef0123456789abcdef", apiUrl: web.url });
  autumn = new Autumn({ secretKey: "am_sk_test_0123456789", serverURL: ent.url });
});
afterAll(async () => {
  await Promise.all([web?.close(), ent?.close()]);
});

describe("@mendable/firecrawl-js works against the Web Data mock unchanged", () => {
  it("startCrawl returns the started job", async () => {
    const started = await firecrawl.startCrawl("https://example.com", { limit: 5, scrapeOptions: { formats: ["markdown"] } });
    expect(started.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(started.url).toContain(started.id);
  });

  it("cancelCrawl reports the job cancelled", async () => {
    await expect(firecrawl.cancelCrawl(id)).resolves.toBe(true);
  });

  it("getTokenUsage returns the team's token figures", async () => {
    const usage = await firecrawl.getTokenUsage();
    expect(usage.remainingTokens).toEqual(expect.any(Number));
    expect(usage.planTokens).toEqual(expect.any(Number));
  });

  it("getCreditUsageHistorical returns monthly periods", async () => {
    const history = await firecrawl.getCreditUsageHistorical(true);
    expect(history.success).toBe(true);
    expect(history.periods.length).toBeGreaterThan(0);
  });

  it("listBrowsers (GET /v2/browser) returns the session list", async () => {
    const list = await firecrawl.listBrowsers({ status: "active" });
    expect(list.success).toBe(true);
    expect(Array.isArray(list.sessions)).toBe(true);
  });

  it("getMonitor returns the monitor", async () => {
    const monitor = await firecrawl.getMonitor(id);
    expect(monitor.id).toEqual(expect.any(String));
  });

  it("the SDK surfaces the mock's 401 as an error with that status", async () => {
    // With no key the SDK sends no Authorization header at all.
    await expect(new Firecrawl({ apiKey: "", apiUrl: web.url }).getTokenUsage()).rejects.toMatchObject({ status: 401 });
  });
});

describe("autumn-js works against the Entitlements mock unchanged", () => {
  it("check returns an access decision", async () => {
    const decision = await autumn.check({ customerId: "cus_123", featureId: "messages" });
    expect(decision.allowed).toBe(true);
    expect(decision.customerId).toEqual(expect.any(String));
  });

  it("track returns the recorded usage", async () => {
    const tracked = await autumn.track({ customerId: "cus_123", featureId: "messages", value: 1 });
    expect(tracked.customerId).toEqual(expect.any(String));
    expect(tracked.value).toEqual(expect.any(Number));
  });

  it("balances.finalize confirms a lock", async () => {
    const finalized = await autumn.balances.finalize({ lockId: "lock_1", action: "confirm" });
    expect(finalized.success).toBe(true);
  });
});
