import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultFixtures, TOKENS_PER_CREDIT, type Fixtures } from "../src/index.js";
import { startApi, type ApiUnderTest } from "./helpers.js";

const world = defaultFixtures.world!.webdata;
const MONITOR = "/v2/monitor/{monitorId}";
const CANCEL = "/v2/crawl/{id}";

describe("web data reference server", () => {
  let api: ApiUnderTest;
  beforeAll(async () => {
    api = await startApi("webdata");
  });
  afterAll(async () => {
    await api.server.close();
  });

  it("crawl: starting returns a job id and a URL under the server, and the job can be cancelled", async () => {
    const started = await api.post("/v2/crawl", { url: defaultFixtures.webdata.crawl_url, limit: 5, origin: "js-sdk" });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ success: true });
    expect(started.body.url).toBe(`${api.server.url}/v2/crawl/${started.body.id}`);
    const cancelled = await api.request("DELETE", `/v2/crawl/${started.body.id}`, { template: CANCEL });
    expect(cancelled).toEqual({ status: 200, body: { status: "cancelled" } });
  });

  it("crawl: an unknown job is 404 'Crawl job not found.', a finished one 409, a non-UUID id 400", async () => {
    const unknown = await api.request("DELETE", "/v2/crawl/6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b", { template: CANCEL });
    expect(unknown).toEqual({ status: 404, body: { error: "Crawl job not found." } });
    const completed = world.crawls!.find((c) => c.status === "completed")!;
    const finished = await api.request("DELETE", `/v2/crawl/${completed.id}`, { template: CANCEL });
    expect(finished).toEqual({ status: 409, body: { error: "Crawl is already completed" } });
    const invalid = await api.request("DELETE", "/v2/crawl/not-a-uuid", { template: CANCEL });
    // Worded as the contract's decision words it (test/decision.test.ts holds every refusal to it).
    expect(invalid).toMatchObject({ status: 400, body: { success: false } });
  });

  it("crawl: an unknown body member is 400 BAD_REQUEST with an unrecognized_keys detail", async () => {
    const { status, body } = await api.post("/v2/crawl", { url: "https://example.com", cache: true });
    expect(status).toBe(400);
    expect(body).toMatchObject({ success: false, code: "BAD_REQUEST", error: "Unrecognized key in body -- please review the v2 API documentation for request body changes" });
    expect(body.details).toEqual([{ code: "unrecognized_keys", keys: ["cache"], path: [], message: 'Unrecognized key: "cache"' }]);
  });

  it("crawl: a missing url and out-of-range options are 400 BAD_REQUEST with details naming the path", async () => {
    const missing = await api.post("/v2/crawl", { limit: 3 });
    expect(missing.body).toMatchObject({ code: "BAD_REQUEST", error: "Bad Request" });
    expect(missing.body.details[0].path).toEqual(["url"]);
    const nested = await api.post("/v2/crawl", { url: "https://example.com", scrapeOptions: { timeout: 10 } });
    expect(nested.body.details.map((d: { path: unknown[] }) => d.path)).toContainEqual(["scrapeOptions", "timeout"]);
  });

  it("crawl: the url, a webhook url and UTF-16 lengths are judged by the bundle's x-rules, as the live service judges them", async () => {
    for (const body of [{ url: "bücher.de" }, { url: "8.8.8.8" }, { url: "https://example.com", webhook: { url: "https://hooks.bücher.de/a b" } }, { url: "https://example.com", prompt: "\u{1F600}".repeat(5000) }]) {
      expect((await api.post("/v2/crawl", body)).status, JSON.stringify(body).slice(0, 80)).toBe(200);
    }
    const refused: Array<[Record<string, unknown>, string[]]> = [
      [{ url: "0.0.260.0" }, ["url"]],
      [{ url: "localhost:8080" }, ["url"]],
      [{ url: "https://example.com", webhook: { url: "http://0.0.260.0/" } }, ["webhook", "url"]],
      [{ url: "https://example.com", prompt: "\u{1F600}".repeat(5001) }, ["prompt"]],
    ];
    for (const [body, path] of refused) {
      const reply = await api.post("/v2/crawl", body);
      expect(reply.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(reply.body.details.map((d: { path: unknown[] }) => d.path.map(String))).toContainEqual(path);
    }
    // checkPromptInjection belongs to the json format only: on deterministicJson it is an unknown key.
    const strict = await api.post("/v2/crawl", { url: "https://example.com", scrapeOptions: { formats: [{ type: "deterministicJson", checkPromptInjection: true }] } });
    expect(strict.status).toBe(400);
    expect(strict.body.details).toContainEqual(expect.objectContaining({ code: "unrecognized_keys", path: ["scrapeOptions", "formats", 0], keys: ["checkPromptInjection"] }));
  });

  it("crawl: malformed JSON is 400 BAD_REQUEST_INVALID_JSON", async () => {
    const { status, body } = await api.request("POST", "/v2/crawl", { rawBody: '{"url": ', template: "/v2/crawl" });
    expect(status).toBe(400);
    expect(body).toEqual({ success: false, code: "BAD_REQUEST_INVALID_JSON", error: "Bad request, malformed JSON" });
  });

  it("crawl: reusing an x-idempotency-key is 409", async () => {
    const key = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d";
    const first = await api.post("/v2/crawl", { url: "https://example.com" }, { headers: { "x-idempotency-key": key } });
    expect(first.status).toBe(200);
    const second = await api.post("/v2/crawl", { url: "https://example.com" }, { headers: { "x-idempotency-key": key } });
    expect(second).toEqual({ status: 409, body: { success: false, error: "Idempotency key already used" } });
  });

  it("GET /v2/interact?status=active returns only active sessions, newest first", async () => {
    const { body } = await api.request("GET", "/v2/interact?status=active");
    const expected = world.sessions.filter((s) => s.status === "active").sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    expect(body.sessions.map((s: { id: string }) => s.id)).toEqual(expected.map((s) => s.id));
    const all = await api.request("GET", "/v2/interact");
    expect(all.body.sessions).toHaveLength(world.sessions.length);
    const destroyed = await api.request("GET", "/v2/browser?status=destroyed");
    expect(destroyed.body.sessions.every((s: { status: string }) => s.status === "destroyed")).toBe(true);
    expect(destroyed.body.sessions.length).toBeGreaterThan(0);
  });

  it("sessions: a status filter no session has lists none, as live (the service does not check it)", async () => {
    const { status, body } = await api.request("GET", "/v2/interact?status=sleeping");
    expect(status).toBe(200);
    expect(body.sessions).toEqual([]);
  });

  it("monitor: a known id returns the monitor, an unknown one 404, a non-UUID 400", async () => {
    const id = defaultFixtures.webdata.monitor_id;
    const found = await api.request("GET", `/v2/monitor/${id}`, { template: MONITOR });
    expect(found.body).toMatchObject({ success: true, data: { id, name: world.monitors[0]!.name } });
    const missing = await api.request("GET", "/v2/monitor/00000000-0000-4000-8000-000000000000", { template: MONITOR });
    expect(missing).toEqual({ status: 404, body: { success: false, error: "Monitor not found" } });
    const invalid = await api.request("GET", "/v2/monitor/nope", { template: MONITOR });
    expect(invalid.body.details[0]).toMatchObject({ code: "invalid_format", path: ["monitorId"] });
  });

  it("the built-in world serves values across the seed's whole range: fractional numbers, non-string webhook maps, a session without streamWebView", async () => {
    const { body } = await api.request("GET", `/v2/monitor/${defaultFixtures.webdata.monitor_id}`, { template: MONITOR });
    const monitor = body.data;
    expect(Number.isInteger(monitor.targets[0].scrapeOptions.threatProtection.riskScoreThreshold)).toBe(false);
    expect(Number.isInteger(monitor.retentionDays)).toBe(false);
    expect(Object.values(monitor.lastCheckSummary).some((count) => !Number.isInteger(count))).toBe(true);
    expect(Object.values(monitor.webhook.headers).some((value) => typeof value !== "string")).toBe(true);
    expect(Object.values(monitor.webhook.metadata).some((value) => typeof value !== "string")).toBe(true);
    const { body: listed } = await api.request("GET", "/v2/interact");
    expect(listed.sessions.some((s: object) => !("streamWebView" in s))).toBe(true);
  });

  it("one credit is 15 tokens: remaining tokens are the plan's minus 15 per credit used this billing period", async () => {
    const { body } = await api.request("GET", "/v2/team/token-usage");
    const start = Date.parse(world.token_usage.billingPeriodStart!);
    const end = Date.parse(world.token_usage.billingPeriodEnd!);
    const credits = world.credit_usage.filter((u) => Date.parse(u.startDate) >= start && Date.parse(u.startDate) < end).reduce((s, u) => s + u.credits, 0);
    expect(credits).toBe(1000);
    expect(TOKENS_PER_CREDIT).toBe(15);
    expect(body.data).toEqual({ ...world.token_usage, remainingTokens: world.token_usage.planTokens - 15_000 });
  });

  it("historical apiKey only with byApiKey=true", async () => {
    const merged = await api.request("GET", "/v2/team/credit-usage/historical");
    expect(merged.body.periods.every((p: object) => !("apiKey" in p))).toBe(true);
    expect(merged.body.periods.map((p: { totalCredits: number }) => p.totalCredits)).toEqual([1500, 2500, 1000]);
    const split = await api.request("GET", "/v2/team/credit-usage/historical?byApiKey=true");
    expect(split.body.periods).toHaveLength(world.credit_usage.length);
    expect(split.body.periods.every((p: { apiKey?: string }) => typeof p.apiKey === "string")).toBe(true);
    const explicitFalse = await api.request("GET", "/v2/team/credit-usage/historical?byApiKey=false");
    expect(explicitFalse.body).toEqual(merged.body);
  });

  it("historical: periods come oldest first", async () => {
    const { body } = await api.request("GET", "/v2/team/credit-usage/historical?byApiKey=true");
    const starts = body.periods.map((p: { startDate: string }) => Date.parse(p.startDate));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });

  it("historical: byApiKey other than true is no, as live (the service does not check it)", async () => {
    const maybe = await api.request("GET", "/v2/team/credit-usage/historical?byApiKey=maybe");
    const none = await api.request("GET", "/v2/team/credit-usage/historical");
    expect(maybe).toEqual(none);
    expect(maybe.status).toBe(200);
  });

  it("auth: no header, an empty bearer and a wrong key get their documented 401 messages", async () => {
    const none = await api.request("GET", "/v2/team/token-usage", { auth: null });
    expect(none).toEqual({ status: 401, body: { success: false, error: "Unauthorized" } });
    const empty = await api.request("GET", "/v2/team/token-usage", { auth: "Bearer " });
    expect(empty.body.error).toBe("Unauthorized: Token missing");
    const wrong = await api.request("GET", "/v2/team/token-usage", { auth: "Bearer fc-00000000000000000000000000000000" });
    expect(wrong.body.error).toBe("Unauthorized: Invalid token");
  });
});

describe("web data reference server with its own fixtures", () => {
  it("serves the monitors and usage of the fixtures it was given", async () => {
    const fixtures: Fixtures = structuredClone(defaultFixtures);
    fixtures.world!.webdata.token_usage = { planTokens: 3000, billingPeriodStart: null, billingPeriodEnd: null };
    fixtures.world!.webdata.credit_usage = [{ apiKey: "fc-a", startDate: "2025-01-01T00:00:00.000Z", endDate: "2025-01-31T23:59:59.999Z", credits: 100 }];
    const api = await startApi("webdata", { fixtures });
    try {
      const { body } = await api.request("GET", "/v2/team/token-usage");
      expect(body.data.remainingTokens).toBe(3000 - 100 * 15);
    } finally {
      await api.server.close();
    }
  });
});
