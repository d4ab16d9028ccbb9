// Webhook calls of the reference server, received by one local receiver per file and judged by the
// contract's own validateDelivery.
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import type { ServerResponse } from "node:http";
import path from "node:path";
import { promisify } from "node:util";
import { startServer, type LocalServer, type RecordedRequest } from "@api-contracts/dev-tools/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultFixtures, startReferenceServer, type DeliveryReport } from "../src/index.js";
import { startApi, validatorsOf, type ApiUnderTest } from "./helpers.js";

const TEAM_SECRET = "team-webhook-secret";
const ENDPOINT_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const webdataContract = validatorsOf("webdata");
const entitlementsContract = validatorsOf("entitlements");

/** Paths under `/silent` are never answered; under `/held` they wait for the test; the rest get 200. */
const held: ServerResponse[] = [];
let receiver: LocalServer;
let hooks: string;

beforeAll(async () => {
  receiver = await startServer((request, res) => {
    if (request.path.startsWith("/silent")) return;
    if (request.path.startsWith("/held")) return void held.push(res);
    res.writeHead(200).end();
  });
  hooks = receiver.url;
});
afterAll(() => receiver.close());

interface Received extends RecordedRequest {
  payload: any;
}
const at = (path: string): Received[] => receiver.requests.filter((r) => r.path === path).map((r) => ({ ...r, payload: JSON.parse(r.body) }));
const typesAt = (path: string): string[] => at(path).map((r) => r.payload.type);
/** Resolves once `path` has received a `crawl.completed`. */
const completedAt = (path: string) => expect.poll(() => typesAt(path).includes("crawl.completed"), { timeout: 10_000 }).toBe(true);

describe("web data: a crawl started with a webhook", () => {
  let api: ApiUnderTest;
  const reports: DeliveryReport[] = [];
  beforeAll(async () => {
    api = await startApi("webdata", { webhookSecret: TEAM_SECRET, onWebhookReport: (report) => reports.push(report) });
  });
  afterAll(() => api.server.close());

  it("delivers crawl.started, one crawl.page per page, then crawl.completed, each signed, with its headers and metadata, the crawl's id, and the contract kept", async () => {
    const started = await api.post("/v2/crawl", {
      url: "https://docs.example.com/guide",
      webhook: { url: `${hooks}/all`, headers: { "X-Receiver-Token": "abc" }, metadata: { project: "docs", run: "7" } },
    });
    expect(started.status).toBe(200);
    await completedAt("/all");
    expect(typesAt("/all")).toEqual(["crawl.started", "crawl.page", "crawl.page", "crawl.page", "crawl.completed"]);
    for (const call of at("/all")) {
      expect(webdataContract.validateDelivery({ headers: call.headers, body: call.body }, { secret: TEAM_SECRET }).errors).toEqual([]);
      expect(call.headers["x-receiver-token"]).toBe("abc");
      expect(call.payload).toMatchObject({ id: started.body.id, metadata: { project: "docs", run: "7" } });
    }
    const pages = at("/all").filter((r) => r.payload.type === "crawl.page");
    expect(pages.map((p) => p.payload.data[0].metadata.sourceURL)).toEqual(["https://docs.example.com/guide", "https://docs.example.com/guide/page-1", "https://docs.example.com/guide/page-2"]);
    expect(pages.every((p) => p.payload.success === true && typeof p.payload.data[0].markdown === "string")).toBe(true);
    expect(new Set(at("/all").map((r) => r.payload.webhookId)).size).toBe(5);
    // Every call has ended, so the crawl has finished: cancelling it now is the documented 409.
    await expect.poll(() => reports.filter((r) => r.url.endsWith("/all")).length).toBe(5);
    const cancel = await api.request("DELETE", `/v2/crawl/${started.body.id}`, { template: "/v2/crawl/{id}" });
    expect(cancel).toEqual({ status: 409, body: { error: "Crawl is already completed" } });
  });

  it("honours events: only the events asked for are delivered, an empty list delivers all, a bare URL delivers all with empty metadata", async () => {
    await api.post("/v2/crawl", { url: "https://example.com", webhook: { url: `${hooks}/completed-only`, events: ["completed"] } });
    await api.post("/v2/crawl", { url: "https://example.com", webhook: { url: `${hooks}/pages-only`, events: ["page", "failed"] } });
    await api.post("/v2/crawl", { url: "https://example.com", limit: 1, webhook: { url: `${hooks}/empty-events`, events: [] } });
    await api.post("/v2/crawl", { url: "example.com", limit: 2, webhook: `${hooks}/bare` });
    await completedAt("/completed-only");
    await completedAt("/empty-events");
    await completedAt("/bare");
    await expect.poll(() => typesAt("/pages-only").length).toBe(3);
    expect(typesAt("/completed-only")).toEqual(["crawl.completed"]);
    expect(typesAt("/pages-only")).toEqual(["crawl.page", "crawl.page", "crawl.page"]);
    expect(typesAt("/empty-events")).toEqual(["crawl.started", "crawl.page", "crawl.completed"]);
    expect(typesAt("/bare")).toEqual(["crawl.started", "crawl.page", "crawl.page", "crawl.completed"]);
    expect(at("/bare")[1]!.payload.data[0].metadata.sourceURL).toBe("http://example.com/");
    expect(at("/bare").every((r) => JSON.stringify(r.payload.metadata) === "{}")).toBe(true);
  });

  it("fills the formats the crawl asks for: links and html, no markdown when it is not asked for", async () => {
    await api.post("/v2/crawl", { url: "https://example.com", limit: 2, scrapeOptions: { formats: ["links", { type: "html" }, "summary"] }, webhook: `${hooks}/formats` });
    await completedAt("/formats");
    const page = at("/formats").find((r) => r.payload.type === "crawl.page")!.payload.data[0];
    expect(Object.keys(page).sort()).toEqual(["html", "links", "metadata"]);
    expect(page.links).toEqual(["https://example.com/page-1"]);
  });

  it("cancel stops the pages still to come; crawl.completed follows, as the service sends it for a cancelled crawl", async () => {
    const started = await api.post("/v2/crawl", { url: "https://example.com", webhook: `${hooks}/held/cancel` });
    await expect.poll(() => at("/held/cancel").length).toBe(1);
    const cancel = await api.request("DELETE", `/v2/crawl/${started.body.id}`, { template: "/v2/crawl/{id}" });
    expect(cancel).toEqual({ status: 200, body: { status: "cancelled" } });
    held.shift()!.writeHead(200).end();
    await expect.poll(() => at("/held/cancel").length).toBe(2);
    held.shift()!.writeHead(200).end();
    await expect.poll(() => reports.filter((r) => r.url.endsWith("/held/cancel") && r.outcome !== "cancelled").length).toBe(2);
    expect(typesAt("/held/cancel")).toEqual(["crawl.started", "crawl.completed"]);
    expect(reports.filter((r) => r.url.endsWith("/held/cancel")).map((r) => `${r.event} ${r.outcome}`)).toEqual([
      "crawl.page cancelled",
      "crawl.page cancelled",
      "crawl.page cancelled",
      "crawl.started delivered",
      "crawl.completed delivered",
    ]);
  });

  it("a crawl without a webhook makes no call and keeps scraping until cancelled", async () => {
    const before = reports.length;
    const started = await api.post("/v2/crawl", { url: "https://example.com", limit: 3 });
    const cancel = await api.request("DELETE", `/v2/crawl/${started.body.id}`, { template: "/v2/crawl/{id}" });
    expect(cancel.status).toBe(200);
    expect(reports.length).toBe(before);
  });
});

describe("web data: bounded deliveries", () => {
  it("without a secret, calls go unsigned", async () => {
    const server = await startReferenceServer({ service: "webdata" });
    try {
      await fetch(`${server.url}/v2/crawl`, {
        method: "POST",
        headers: { authorization: `Bearer ${defaultFixtures.api_keys.webdata}`, "content-type": "application/json" },
        body: JSON.stringify({ url: "https://example.com", limit: 0, webhook: `${hooks}/unsigned` }),
      });
      await completedAt("/unsigned");
      expect(at("/unsigned").map((r) => r.headers["x-firecrawl-signature"])).toEqual([undefined, undefined]);
      expect(webdataContract.validateDelivery({ headers: at("/unsigned")[0]!.headers, body: at("/unsigned")[0]!.body }).errors).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("a receiver that never answers: each call is cut after the timeout and sent once, calls past the cap are dropped whole, crawl starts answer at once, close does not wait", async () => {
    const reports: DeliveryReport[] = [];
    const api = await startApi("webdata", { webhookSecret: TEAM_SECRET, limits: { webhookTimeoutMs: 200, maxPendingWebhooks: 6 }, onWebhookReport: (report) => reports.push(report) });
    try {
      const crawl = (path: string) => api.post("/v2/crawl", { url: "https://example.com", webhook: `${hooks}/silent/${path}` });
      const first = await crawl("first");
      const second = await crawl("second");
      expect([first.status, second.status]).toEqual([200, 200]);
      // The first crawl's five calls fit under the cap of six; the second crawl's do not, and none of them is sent.
      expect(reports.filter((r) => r.outcome === "dropped").map((r) => r.event)).toEqual(["crawl.started", "crawl.page", "crawl.page", "crawl.page", "crawl.completed"]);
      await expect.poll(() => reports.filter((r) => r.outcome === "timed-out").length, { timeout: 10_000 }).toBe(5);
      expect(typesAt("/silent/first")).toEqual(["crawl.started", "crawl.page", "crawl.page", "crawl.page", "crawl.completed"]);
      expect(at("/silent/second")).toEqual([]);
      expect(reports.filter((r) => r.outcome === "timed-out").every((r) => r.durationMs >= 190 && r.durationMs < 2_000)).toBe(true);

      await crawl("closing");
      await expect.poll(() => at("/silent/closing").length).toBe(1);
    } finally {
      const closing = performance.now();
      await api.server.close();
      expect(performance.now() - closing).toBeLessThan(1_000);
    }
    expect(reports.filter((r) => r.url.endsWith("/silent/closing")).map((r) => r.outcome)).toEqual(["cancelled", "cancelled", "cancelled", "cancelled", "cancelled"]);
  });

  it("refuses webhookUrl, which is the entitlements endpoint, for web data", async () => {
    await expect(startReferenceServer({ service: "webdata", webhookUrl: hooks })).rejects.toThrow(/names its own webhook/);
  });
});

describe("entitlements: balances.limit_reached to the configured endpoint", () => {
  let api: ApiUnderTest;
  const ids = defaultFixtures.entitlements;
  beforeAll(async () => {
    api = await startApi("entitlements", { webhookUrl: `${hooks}/balances`, webhookSecret: ENDPOINT_SECRET });
  });
  afterAll(() => api.server.close());
  const limitEvents = () => at("/balances").map((r) => r.payload.data);

  it("a track that uses the last of a balance delivers one call, signed with Standard Webhooks, naming the entity; tracks past it deliver none", async () => {
    const grace = { customer_id: ids.customer_id, entity_id: "seat_grace", feature_id: ids.metered_feature_id };
    await api.post("/v1/balances.track", { ...grace, value: 50 });
    await api.post("/v1/balances.track", { ...grace, value: 49 });
    expect(limitEvents()).toEqual([]);
    await api.post("/v1/balances.track", { ...grace, value: 1 });
    await expect.poll(() => limitEvents().length).toBe(1);
    await api.post("/v1/balances.track", { ...grace, value: 5 });
    const [call] = at("/balances");
    expect(call!.payload).toEqual({ type: "balances.limit_reached", data: { customer_id: ids.customer_id, feature_id: ids.metered_feature_id, limit_type: "included", entity_id: "seat_grace" } });
    const verdict = entitlementsContract.validateDelivery({ headers: call!.headers, body: call!.body }, { secret: ENDPOINT_SECRET });
    expect(verdict.errors).toEqual([]);
    expect(verdict.event).toBe("balances.limit_reached");
    expect(entitlementsContract.validateDelivery({ headers: call!.headers, body: call!.body }, { secret: "whsec_" + Buffer.from("another key").toString("base64") }).errors.map((e) => e.params.reason)).toEqual(["invalid_signature"]);
    // A refund opens the balance again; the next track that uses it up is another limit reached.
    await api.post("/v1/balances.track", { ...grace, value: -10 });
    await api.post("/v1/balances.track", { ...grace, value: 10 });
    await expect.poll(() => limitEvents().length).toBe(2);
  });

  it("a check with send_event and a lock on the last units reach it too; confirming that lock, an unlimited feature and a plain check do not", async () => {
    await api.post("/v1/balances.check", { customer_id: ids.customer_id, feature_id: ids.metered_feature_id, required_balance: 1000, send_event: true });
    await expect.poll(() => limitEvents().length).toBe(3);
    expect(limitEvents()[2]).toEqual({ customer_id: ids.customer_id, feature_id: ids.metered_feature_id, limit_type: "included" });

    const lock = { lock_id: "last-units", enabled: true };
    await api.post("/v1/balances.check", { customer_id: ids.customer_id, entity_id: "seat_ada", feature_id: ids.metered_feature_id, required_balance: 960, lock });
    await expect.poll(() => limitEvents().length).toBe(4);
    expect(limitEvents()[3]).toMatchObject({ entity_id: "seat_ada" });
    await api.post("/v1/balances.finalize", { lock_id: "last-units", action: "confirm" });
    await api.post("/v1/balances.track", { customer_id: ids.customer_id, feature_id: ids.unlimited_feature_id, value: 1e9 });
    await api.post("/v1/balances.check", { customer_id: "cus_hobby", feature_id: ids.metered_feature_id, required_balance: 5 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(limitEvents()).toHaveLength(4);
  });

  it("webhookUrl and webhookSecret go together, and the secret is a whsec_ key", async () => {
    await expect(startReferenceServer({ service: "entitlements", webhookUrl: hooks })).rejects.toThrow(/go together/);
    await expect(startReferenceServer({ service: "entitlements", webhookSecret: ENDPOINT_SECRET })).rejects.toThrow(/go together/);
    await expect(startReferenceServer({ service: "entitlements", webhookUrl: hooks, webhookSecret: "plain" })).rejects.toThrow(/whsec_/);
    await expect(startReferenceServer({ service: "entitlements", webhookUrl: "mailto:ops@example.com", webhookSecret: ENDPOINT_SECRET })).rejects.toThrow(/http or https/);
  });
});

describe("reference-server command: webhook flags", () => {
  // The installed command: the bin shim loading the built CLI (tests run after the build).
  const bin = path.resolve(import.meta.dirname, "../bin/reference-server.js");

  it("--webhook-secret signs crawl calls, --entitlements-webhook and its secret send balance events, and each call's end is a line on stderr", async () => {
    const args = ["--webdata-port", "0", "--entitlements-port", "0", "--webhook-secret", TEAM_SECRET, "--entitlements-webhook", `${hooks}/cli-balances?token=hidden`, "--entitlements-webhook-secret", ENDPOINT_SECRET];
    const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    try {
      await expect.poll(() => (stdout.match(/listening on/g) ?? []).length, { timeout: 30_000 }).toBe(2);
      const urlOf = (service: string) => new RegExp(`${service} reference server listening on (\\S+)`).exec(stdout)![1]!;
      const post = (service: "webdata" | "entitlements", route: string, body: object) =>
        fetch(`${urlOf(service)}${route}`, { method: "POST", headers: { authorization: `Bearer ${defaultFixtures.api_keys[service]}`, "content-type": "application/json" }, body: JSON.stringify(body) });
      await post("webdata", "/v2/crawl", { url: "https://example.com", limit: 1, webhook: `${hooks}/cli` });
      await post("entitlements", "/v1/balances.track", { customer_id: defaultFixtures.entitlements.customer_id, entity_id: "seat_grace", feature_id: "messages", value: 100 });
      await completedAt("/cli");
      await expect.poll(() => at("/cli-balances?token=hidden").length).toBe(1);
      for (const call of at("/cli")) expect(webdataContract.validateDelivery({ headers: call.headers, body: call.body }, { secret: TEAM_SECRET }).errors).toEqual([]);
      const [balances] = at("/cli-balances?token=hidden");
      expect(entitlementsContract.validateDelivery({ headers: balances!.headers, body: balances!.body }, { secret: ENDPOINT_SECRET }).errors).toEqual([]);
      await expect.poll(() => stderr.split("\n").filter((line) => line.includes(" webhook ")).length).toBe(4);
      expect(stderr).toMatch(new RegExp(`^webdata webhook crawl\\.started to ${hooks}/cli: delivered 200 in \\d+ ms$`, "m"));
      expect(stderr).toMatch(new RegExp(`^entitlements webhook balances\\.limit_reached to ${hooks}/cli-balances: delivered 200 in \\d+ ms$`, "m"));
      expect(stderr).not.toContain("hidden");
      // The keys the servers accept are printed at start; the webhook secrets never are.
      expect(stdout).toContain(`accepts Authorization: Bearer ${defaultFixtures.api_keys.webdata} (api_keys.webdata of the built-in fixtures`);
      for (const secret of [TEAM_SECRET, ENDPOINT_SECRET]) expect(stdout + stderr).not.toContain(secret);
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  }, 60_000);

  it("an endpoint without its secret, or with a secret that is not whsec_, is a usage error (exit 2)", async () => {
    const run = promisify(execFile);
    for (const [args, message] of [
      [["--entitlements-webhook", hooks], /go together/],
      [["--entitlements-webhook", hooks, "--entitlements-webhook-secret", "plain"], /whsec_/],
      [["--entitlements-webhook", "mailto:ops@example.com", "--entitlements-webhook-secret", ENDPOINT_SECRET], /http or https/],
      [["--webhook-timeout", "0"], /--webhook-timeout must be a positive integer/],
    ] as const) {
      const failure = await run(process.execPath, [bin, "--service", "entitlements", "--entitlements-port", "0", ...args]).catch((error: { code: number; stderr: string }) => error);
      expect((failure as { code: number }).code, args.join(" ")).toBe(2);
      expect((failure as { stderr: string }).stderr).toMatch(message);
    }
  }, 60_000);
});
