import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultFixtures } from "../src/index.js";
import { startApi, manualClock, type ApiUnderTest, validatorsOf } from "./helpers.js";

const ids = defaultFixtures.entitlements;

describe("every answer matches the description", () => {
  let ent: ApiUnderTest;
  let web: ApiUnderTest;
  const clock = manualClock();
  beforeAll(async () => {
    ent = await startApi("entitlements", { now: clock.now });
    web = await startApi("webdata");
  });
  afterAll(async () => {
    await Promise.all([ent.server.close(), web.server.close()]);
  });

  it("the response check rejects a body that breaks the documented schema", () => {
    const spec = validatorsOf("entitlements");
    const validate = spec.response("POST", "/v1/balances.check", 200)!;
    expect(validate({ allowed: true, customer_id: "c", balance: null, flag: null })).toBe(true);
    expect(validate({ allowed: "yes", customer_id: "c", balance: null, flag: null })).toBe(false);
    expect(validate({ allowed: true, customer_id: "c", flag: null })).toBe(false);
  });

  it("entitlements: a sequence over every operation and outcome answers only documented bodies", async () => {
    const check = (body: object, headers: Record<string, string> = {}) => ent.post("/v1/balances.check", body, { headers });
    const base = { customer_id: ids.customer_id, feature_id: ids.metered_feature_id };
    await check(base);
    await check({ ...base, feature_id: ids.unlimited_feature_id });
    await check({ ...base, feature_id: ids.boolean_feature_id });
    await check({ ...base, feature_id: ids.denied_feature_id, with_preview: true });
    await check({ customer_id: "cus_hobby", feature_id: "messages", with_preview: true });
    await check({ ...base, entity_id: "seat_ada", send_event: true, required_balance: 2 });
    await check({ ...base, lock: { lock_id: "c-1", enabled: true, expires_at: clock.now() + 60_000 } });
    await check({ ...base, lock: { lock_id: "c-1", enabled: true } });
    await ent.request("POST", "/v1/balances.check?expand=balance.feature,flag.feature", { body: base, template: "/v1/balances.check" });
    await ent.post("/v1/check", base);
    await ent.post("/v1/balances.finalize", { lock_id: "c-1", action: "confirm", override_value: 3 });
    await ent.post("/v1/balances.finalize", { lock_id: "c-1", action: "release" });
    await ent.post("/v1/balances.track", { customer_id: ids.customer_id, feature_id: "messages", value: 4, idempotency_key: "k" });
    await ent.post("/v1/balances.track", { customer_id: ids.customer_id, feature_id: "messages", idempotency_key: "k" });
    await ent.post("/v1/track", { customer_id: ids.customer_id, event_name: "message.sent", entity_id: "seat_ada" });
    await ent.post("/v1/balances.track", { customer_id: ids.unknown_customer_id, feature_id: "messages" });
    await check({ ...base, feature_id: "nope" });
    await check({ ...base, required_balance: "x" });
    await check(base, { "x-api-version": "nope" });
    await ent.post("/v1/balances.check", base, { auth: null });
    await ent.post("/v1/balances.finalize", { lock_id: "x", action: "confirm" }, { auth: "Bearer am_sk_other" });
    await ent.request("POST", "/v1/balances.track", { rawBody: "[", template: "/v1/balances.track" });

    const statuses = new Set(ent.seen.map((s) => `${s.path} ${s.status}`));
    for (const expected of ["/v1/balances.check 200", "/v1/balances.check 400", "/v1/balances.check 401", "/v1/balances.check 404", "/v1/balances.check 409", "/v1/balances.finalize 200", "/v1/balances.finalize 400", "/v1/balances.finalize 401", "/v1/balances.track 200", "/v1/balances.track 404", "/v1/balances.track 409", "/v1/balances.track 400", "/v1/track 200", "/v1/check 200"]) {
      expect(statuses).toContain(expected);
    }
    const described = validatorsOf("entitlements").listOperations().map((o) => o.path);
    expect(new Set(ent.seen.map((s) => s.path))).toEqual(new Set(described));
  });

  it("web data: a sequence over every operation and outcome answers only documented bodies", async () => {
    const started = await web.post("/v2/crawl", { url: "https://example.com/blog", scrapeOptions: { formats: ["markdown", { type: "screenshot" }], onlyMainContent: true }, webhook: { url: "https://hooks.example.com/x", events: ["completed"] } });
    await web.request("DELETE", `/v2/crawl/${started.body.id}`, { template: "/v2/crawl/{id}" });
    await web.request("DELETE", "/v2/crawl/123", { template: "/v2/crawl/{id}" });
    await web.request("DELETE", "/v2/crawl/6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b", { template: "/v2/crawl/{id}" });
    await web.request("DELETE", `/v2/crawl/${defaultFixtures.world!.webdata.crawls![0]!.id}`, { template: "/v2/crawl/{id}" });
    await web.post("/v2/crawl", { url: "ftp://example.com" });
    await web.post("/v2/crawl", { url: "https://example.com", delay: 0 });
    await web.request("POST", "/v2/crawl", { rawBody: "nope", template: "/v2/crawl" });
    await web.request("GET", "/v2/interact");
    await web.request("GET", "/v2/interact?status=destroyed");
    await web.request("GET", "/v2/browser?status=active");
    await web.request("GET", "/v2/browser?status=gone");
    await web.request("GET", `/v2/monitor/${defaultFixtures.webdata.monitor_id}`, { template: "/v2/monitor/{monitorId}" });
    await web.request("GET", "/v2/monitor/00000000-0000-4000-8000-000000000000", { template: "/v2/monitor/{monitorId}" });
    await web.request("GET", "/v2/monitor/x", { template: "/v2/monitor/{monitorId}" });
    await web.request("GET", "/v2/team/token-usage");
    await web.request("GET", "/v2/team/token-usage", { auth: "Bearer" });
    await web.request("GET", "/v2/team/credit-usage/historical?byApiKey=true");
    await web.request("GET", "/v2/team/credit-usage/historical?byApiKey=2");
    await web.request("GET", "/v2/team/credit-usage/historical", { auth: "Basic abc" });

    const described = validatorsOf("webdata").listOperations().map((o) => o.path);
    expect(new Set(web.seen.map((s) => s.path))).toEqual(new Set(described));
    expect(web.seen.filter((s) => s.status >= 500)).toEqual([]);
    expect(new Set(web.seen.map((s) => s.status))).toEqual(new Set([200, 400, 401, 404, 409]));
  });
});
