import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OpenApiValidators, loadBundle, subscribesTo, subscriptionMismatches, takesWebhook, webhookSubscription } from "../src/index.js";
import { WebhookDeliverer, describeDeliveryReport, jobEventCall, type DeliveryReport, type WebhookDelivererOptions } from "../src/server/index.js";

const webdata = new OpenApiValidators(loadBundle("webdata"));
const entitlements = new OpenApiValidators(loadBundle("entitlements"));
const STANDARD_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

interface Received {
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/**
 * One receiver for the whole file; its path says how to answer: `/ok`, `/status/<n>`, `/silent`
 * (never answers), `/slow/<ms>`, `/huge` (an endless answer body), `/held` (answers when released).
 */
const received: Received[] = [];
const held: ServerResponse[] = [];
let receiver: Server;
let base: string;

function answer(req: IncomingMessage, res: ServerResponse, body: string): void {
  received.push({ path: req.url ?? "", headers: req.headers, body });
  const [, kind, arg] = (req.url ?? "").split("/");
  if (kind === "silent") return;
  if (kind === "held") return void held.push(res);
  if (kind === "status") return void res.writeHead(Number(arg)).end();
  if (kind === "slow") return void setTimeout(() => res.writeHead(200).end(), Number(arg));
  if (kind === "huge") {
    res.writeHead(200);
    const chunk = Buffer.alloc(16 * 1024, 120);
    const pump = (): void => {
      while (res.write(chunk));
      res.once("drain", pump);
    };
    res.on("close", () => res.removeAllListeners("drain"));
    return pump();
  }
  res.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => answer(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

/** A deliverer whose reports are kept, closed by the caller. */
function deliverer(options: WebhookDelivererOptions = {}): { sender: WebhookDeliverer; reports: DeliveryReport[] } {
  const reports: DeliveryReport[] = [];
  return { sender: new WebhookDeliverer({ ...options, onReport: (report) => reports.push(report) }), reports };
}

const receivedAt = (path: string) => received.filter((r) => r.path === path);
const crawlId = "3c1a5d9e-6f2b-4b7a-9d1e-8a2f4c6b0e17";

describe("WebhookDeliverer", () => {
  it("POSTs the payload as JSON with the webhook's headers, signed by the description's scheme over the exact body", async () => {
    const { sender, reports } = deliverer({ signature: webdata.webhookSignature, secret: "team-secret" });
    const subscription = webhookSubscription(loadBundle("webdata"), { method: "POST", path: "/v2/crawl" }, {
      url: "https://example.com",
      webhook: { url: ` ${base}/ok/signed `, headers: { "X-Team": "docs", "Content-Length": "3", Host: "evil.example" }, metadata: { project: "docs" } },
    }, "webhook")!;
    expect(sender.send(jobEventCall(subscription, { type: "crawl.started", id: crawlId, success: true, data: [] }))).toBe(true);
    await sender.settled();
    const [call] = receivedAt("/ok/signed");
    expect(call!.headers["x-team"]).toBe("docs");
    expect(call!.headers.host).toBe(new URL(base).host);
    expect(call!.headers["content-type"]).toBe("application/json");
    const verdict = webdata.validateDelivery({ headers: call!.headers, body: call!.body }, { secret: "team-secret" });
    expect(verdict.errors).toEqual([]);
    expect(verdict.event).toBe("crawl.started");
    expect(verdict.payload).toMatchObject({ id: crawlId, metadata: { project: "docs" }, data: [] });
    expect(Object.keys(verdict.payload as object)).toEqual(["success", "type", "id", "webhookId", "data", "metadata"]);
    expect(webdata.validateDelivery({ headers: call!.headers, body: call!.body }, { secret: "another-secret" }).errors.map((e) => e.params.reason)).toEqual(["invalid_signature"]);
    expect(reports).toEqual([expect.objectContaining({ event: "crawl.started", outcome: "delivered", status: 200 })]);
  });

  it("signs Standard Webhooks calls with svix-id, svix-timestamp and svix-signature, and refuses a secret without whsec_ at once", async () => {
    const { sender } = deliverer({ signature: entitlements.webhookSignature, secret: STANDARD_SECRET });
    const payload = { type: "balances.limit_reached", data: { customer_id: "cus_1", feature_id: "messages", limit_type: "included" } };
    sender.send({ url: `${base}/ok/standard`, payload });
    await sender.settled();
    const [call] = receivedAt("/ok/standard");
    expect(call!.headers["svix-id"]).toMatch(/^msg_/);
    expect(entitlements.validateDelivery({ headers: call!.headers, body: call!.body }, { secret: STANDARD_SECRET }).errors).toEqual([]);
    expect(() => new WebhookDeliverer({ signature: entitlements.webhookSignature, secret: "not-a-whsec" })).toThrow(/whsec_/);
    expect(() => new WebhookDeliverer({ secret: "a" })).toThrow(/signature scheme/);
  });

  it("sends no signature header without a secret", async () => {
    const { sender } = deliverer({ signature: webdata.webhookSignature });
    sender.send({ url: `${base}/ok/unsigned`, payload: { type: "crawl.started" } });
    await sender.settled();
    expect(receivedAt("/ok/unsigned")[0]!.headers["x-firecrawl-signature"]).toBeUndefined();
  });

  it("a sequence reaches its receiver in the order pushed, each call after the previous one ended", async () => {
    const { sender, reports } = deliverer();
    const sequence = sender.sequence();
    sequence.push({ url: `${base}/slow/150/order`, payload: { type: "a" } }, { url: `${base}/ok/order`, payload: { type: "b" } }, { url: `${base}/slow/20/order`, payload: { type: "c" } });
    await sequence.idle();
    const order = received.filter((r) => r.path.endsWith("/order")).map((r) => JSON.parse(r.body).type);
    expect(order).toEqual(["a", "b", "c"]);
    expect(reports.map((r) => r.event)).toEqual(["a", "b", "c"]);
    expect(sender.pending).toBe(0);
  });

  it("a receiver that never answers is cut after timeoutMs, and nothing is retried", async () => {
    const { sender, reports } = deliverer({ limits: { timeoutMs: 200 } });
    const sequence = sender.sequence();
    sequence.push({ url: `${base}/silent/timeout`, payload: { type: "first" } }, { url: `${base}/status/500/timeout`, payload: { type: "second" } });
    await sequence.idle();
    expect(reports.map((r) => [r.event, r.outcome, r.status])).toEqual([
      ["first", "timed-out", undefined],
      ["second", "refused", 500],
    ]);
    expect(reports[0]!.durationMs).toBeGreaterThanOrEqual(190);
    expect(receivedAt("/silent/timeout")).toHaveLength(1);
    expect(receivedAt("/status/500/timeout")).toHaveLength(1);
  });

  it("at most maxPending calls wait or run: more are dropped, a sequence is taken whole or not at all", async () => {
    const { sender, reports } = deliverer({ limits: { timeoutMs: 300, maxPending: 3 } });
    const silent = { url: `${base}/silent/cap`, payload: { type: "held" } };
    expect(sender.send(silent)).toBe(true);
    expect(sender.sequence().push(silent, silent, silent)).toBe(false);
    expect(sender.sequence().push(silent, silent)).toBe(true);
    expect(sender.send(silent)).toBe(false);
    expect([sender.pending, sender.room]).toEqual([3, 0]);
    await sender.settled();
    expect(sender.room).toBe(3);
    expect(sender.stats).toMatchObject({ dropped: 4, "timed-out": 3 });
    expect(reports.filter((r) => r.outcome === "dropped").every((r) => r.durationMs === 0)).toBe(true);
    expect(sender.send(silent)).toBe(true);
    await sender.close();
  });

  it("cancel takes waiting calls off a sequence (those kept still go); close aborts calls in flight and drops later ones", async () => {
    const { sender, reports } = deliverer();
    const sequence = sender.sequence();
    sequence.push(
      { url: `${base}/held/cancel`, payload: { type: "crawl.started" } },
      { url: `${base}/ok/cancel`, payload: { type: "crawl.page" } },
      { url: `${base}/ok/cancel`, payload: { type: "crawl.page" } },
      { url: `${base}/ok/cancel`, payload: { type: "crawl.completed" } },
    );
    await expect.poll(() => receivedAt("/held/cancel").length).toBe(1);
    expect(sequence.cancel((call) => (call.payload as { type: string }).type === "crawl.completed")).toBe(2);
    held.shift()!.writeHead(200).end();
    await sequence.idle();
    expect(reports.map((r) => `${r.event} ${r.outcome}`)).toEqual(["crawl.page cancelled", "crawl.page cancelled", "crawl.started delivered", "crawl.completed delivered"]);

    sender.send({ url: `${base}/silent/close`, payload: { type: "in-flight" } });
    sender.sequence().push({ url: `${base}/silent/close`, payload: { type: "running" } }, { url: `${base}/ok/close`, payload: { type: "waiting" } });
    await expect.poll(() => receivedAt("/silent/close").length).toBe(2);
    await sender.close();
    expect([sender.pending, sender.room]).toEqual([0, 0]);
    expect(sender.send({ url: `${base}/ok/close`, payload: { type: "late" } })).toBe(false);
    expect(receivedAt("/ok/close")).toHaveLength(0);
    expect(reports.slice(4).map((r) => `${r.event} ${r.outcome}`).sort()).toEqual(["in-flight cancelled", "late dropped", "running cancelled", "waiting cancelled"]);
  });

  it("a URL or header that cannot be sent, and an answer without end, are ended and reported, never thrown", async () => {
    const { sender, reports } = deliverer({ limits: { maxAnswerBytes: 1024, timeoutMs: 5_000 } });
    sender.send({ url: "ftp://files.example/hook", payload: { type: "scheme" } });
    sender.send({ url: "not a url", payload: { type: "unparsable" } });
    sender.send({ url: `${base}/ok/bad-header`, headers: { "bad name": "x" }, payload: { type: "header-name" } });
    sender.send({ url: `${base}/ok/bad-header`, headers: { "x-split": "a\r\nInjected: yes" }, payload: { type: "header-value" } });
    sender.send({ url: "http://127.0.0.1:1/refused", payload: { type: "refused-connection" } });
    sender.send({ url: `${base}/huge`, payload: { type: "endless-answer" } });
    await sender.settled();
    const byEvent = Object.fromEntries(reports.map((r) => [r.event, r]));
    expect(byEvent.scheme).toMatchObject({ outcome: "failed", error: "ftp: URLs are not called" });
    expect(byEvent.unparsable).toMatchObject({ outcome: "failed", error: "ERR_INVALID_URL" });
    expect(byEvent["header-name"]).toMatchObject({ outcome: "failed", error: "ERR_INVALID_HTTP_TOKEN" });
    expect(byEvent["header-value"]).toMatchObject({ outcome: "failed", error: "ERR_INVALID_CHAR" });
    expect(byEvent["refused-connection"]).toMatchObject({ outcome: "failed", error: "ECONNREFUSED" });
    expect(byEvent["endless-answer"]).toMatchObject({ outcome: "delivered", status: 200 });
    expect(byEvent["endless-answer"]!.durationMs).toBeLessThan(5_000);
    expect(receivedAt("/ok/bad-header")).toHaveLength(0);
  });

  it("describeDeliveryReport: one line, the URL without its query or credentials", () => {
    expect(describeDeliveryReport({ event: "crawl.page", url: " https://user:pass@hooks.example:8443/in?token=secret ", outcome: "refused", status: 503, durationMs: 12 })).toBe("crawl.page to https://hooks.example:8443/in: refused 503 in 12 ms");
    expect(describeDeliveryReport({ event: undefined, url: "nowhere", outcome: "failed", error: "ERR_INVALID_URL", durationMs: 0 })).toBe("(no type) to (not a URL): failed (ERR_INVALID_URL) in 0 ms");
  });

  it("refuses unknown and non-positive limits", () => {
    expect(() => new WebhookDeliverer({ limits: { timeoutMs: 0 } })).toThrow(/positive integer/);
    expect(() => new WebhookDeliverer({ limits: { retries: 3 } as never })).toThrow(/unknown delivery limit/);
  });
});

describe("webhookSubscription", () => {
  const document = loadBundle("webdata");
  const crawl = { method: "POST", path: "/v2/crawl" };

  it("reads a bare string as {url} with the description's defaults: every event, no headers, empty metadata", () => {
    expect(webhookSubscription(document, crawl, { url: "https://example.com", webhook: " https://hooks.example/x " }, "webhook")).toEqual({
      url: "https://hooks.example/x",
      headers: {},
      metadata: {},
      events: ["started", "page", "completed", "failed"],
    });
    expect(webhookSubscription(document, crawl, { url: "https://example.com" }, "webhook")).toBeUndefined();
  });

  it("takesWebhook: only operations whose request body has a webhook member; their bodies alone are read", () => {
    expect(takesWebhook(document, crawl, "webhook")).toBe(true);
    expect(takesWebhook(document, { method: "DELETE", path: "/v2/crawl/{id}" }, "webhook")).toBe(false);
    expect(takesWebhook(loadBundle("entitlements"), { method: "POST", path: "/v1/balances.track" }, "webhook")).toBe(false);
    expect(webhookSubscription(loadBundle("entitlements"), { method: "POST", path: "/v1/balances.track" }, { webhook: "https://hooks.example" }, "webhook")).toBeUndefined();
  });

  it("keeps the given events, headers and metadata; an empty events list takes every event", () => {
    const subscription = webhookSubscription(document, crawl, { webhook: { url: "https://hooks.example", events: ["completed"], headers: { a: "b" }, metadata: { m: "n" } } }, "webhook")!;
    expect(subscription).toMatchObject({ events: ["completed"], headers: { a: "b" }, metadata: { m: "n" } });
    expect(subscribesTo(subscription, "crawl.completed")).toBe(true);
    expect(subscribesTo(subscription, "crawl.page")).toBe(false);
    expect(subscribesTo({ ...subscription, events: [] }, "crawl.page")).toBe(true);
  });

  it("subscriptionMismatches: an event not asked for, metadata not echoed exactly, a header missing or changed", () => {
    const subscription = webhookSubscription(document, crawl, { webhook: { url: "https://hooks.example", events: ["completed"], headers: { "X-Team": "docs" }, metadata: { a: "1", b: "2" } } }, "webhook")!;
    const payload = { type: "crawl.completed", metadata: { b: "2", a: "1" } };
    expect(subscriptionMismatches(subscription, { payload, headers: { "x-team": "docs" } })).toEqual([]);
    expect(subscriptionMismatches(subscription, { payload: { type: "crawl.page", metadata: { a: "1" } }, headers: { "X-TEAM": "other" } })).toEqual([
      { member: "events", message: "crawl.page was delivered; the webhook asked for completed" },
      { member: "metadata", message: 'metadata {"a":"1"} is not the webhook\'s {"a":"1","b":"2"}' },
      { member: "headers", name: "X-Team", message: "header X-Team is not the value the webhook asked for" },
    ]);
    expect(subscriptionMismatches(subscription, { payload: { type: "crawl.completed" }, headers: {} }).map((m) => m.member)).toEqual(["metadata", "headers"]);
    // No metadata asked and none sent is no mismatch: a payload may leave out an empty metadata.
    const bare = webhookSubscription(document, crawl, { webhook: "https://hooks.example" }, "webhook")!;
    expect(subscriptionMismatches(bare, { payload: { type: "crawl.page" }, headers: {} })).toEqual([]);
  });

  it("jobEventCall carries error only when given and a new webhookId every call", () => {
    const subscription = webhookSubscription(document, crawl, { webhook: "https://hooks.example" }, "webhook")!;
    const failed = jobEventCall(subscription, { type: "crawl.page", id: crawlId, success: false, data: [{ metadata: { sourceURL: "https://example.com/a" } }], error: "Request timed out" });
    const again = jobEventCall(subscription, { type: "crawl.page", id: crawlId, success: true, data: [{ metadata: {} }] });
    expect(failed.payload).toMatchObject({ success: false, error: "Request timed out", metadata: {} });
    expect(again.payload).not.toHaveProperty("error");
    expect((failed.payload as { webhookId: string }).webhookId).not.toBe((again.payload as { webhookId: string }).webhookId);
    expect(webdata.webhook("crawl.page").body!(failed.payload)).toBe(true);
  });
});
