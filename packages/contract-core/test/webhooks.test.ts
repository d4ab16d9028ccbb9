import { describe, expect, it } from "vitest";
import {
  OpenApiValidators,
  checkWebhookSignature,
  loadBundle,
  signWebhook,
  walkWebhooks,
  webhookSignatureScheme,
  type JsonObject,
  type WebhookSignatureScheme,
} from "../src/index.js";
import { firecrawlVector, standardWebhooksHeaders as standardHeaders, standardWebhooksVector as standardVector } from "@api-contracts/dev-tools/testing";

const webdata = new OpenApiValidators(loadBundle("webdata"));
const entitlements = new OpenApiValidators(loadBundle("entitlements"));
const firecrawl = webdata.webhookSignature!;
const svix = entitlements.webhookSignature!;

const atVector = () => standardVector.timestamp * 1000;

describe("walkWebhooks", () => {
  it("lists every webhook of a description with its event, operationId and POST, $refs followed", () => {
    const walked = walkWebhooks(loadBundle("webdata"));
    expect(walked.map((w) => `${w.method} ${w.event} ${w.operationId}`)).toEqual([
      "POST crawl.started crawlStarted",
      "POST crawl.page crawlPage",
      "POST crawl.completed crawlCompleted",
      "POST monitor.page monitorPage",
      "POST monitor.check.completed monitorCheckCompleted",
    ]);
    const page = walked.find((w) => w.event === "crawl.page")!;
    expect(page.pointer).toBe("/webhooks/crawl.page/post");
    expect(page.parameters.map((p) => `${p.in} ${p.name}`)).toEqual(["header X-Firecrawl-Signature"]);
    expect(page.requestBody?.media[0]?.examples.map((e) => e.name)).toEqual(["scraped", "failed"]);
    expect(page.responses.map((r) => r.status)).toEqual(["2XX", "default"]);
    expect(walkWebhooks(loadBundle("entitlements")).map((w) => w.event)).toEqual(["balances.limit_reached", "balances.usage_alert_triggered"]);
  });

  it("gives nothing for a description without webhooks", () => {
    expect(walkWebhooks({ openapi: "3.1.0", paths: {} })).toEqual([]);
  });
});

describe("x-webhook-signature", () => {
  it("reads each description's scheme", () => {
    expect(firecrawl).toMatchObject({ scheme: "hmac-sha256-hex", signatureHeader: "X-Firecrawl-Signature", prefix: "sha256=" });
    expect(svix).toMatchObject({ scheme: "standard-webhooks", idHeader: "svix-id", timestampHeader: "svix-timestamp", signatureHeader: "svix-signature", toleranceSeconds: 300 });
  });

  it("refuses an unknown scheme or a scheme without its headers", () => {
    expect(() => webhookSignatureScheme({ "x-webhook-signature": { scheme: "md5" } })).toThrow(/unknown scheme "md5"/);
    expect(() => webhookSignatureScheme({ "x-webhook-signature": { scheme: "hmac-sha256-hex" } })).toThrow(/signatureHeader/);
    expect(() => webhookSignatureScheme({ "x-webhook-signature": { scheme: "standard-webhooks", idHeader: "a", timestampHeader: "b", signatureHeader: "c" } })).toThrow(/toleranceSeconds/);
    expect(webhookSignatureScheme({})).toBeUndefined();
  });
});

describe("signWebhook", () => {
  it("hmac-sha256-hex: gives Firecrawl's own test vector", () => {
    expect(signWebhook(firecrawl, firecrawlVector.body, firecrawlVector.secret)).toEqual({ "X-Firecrawl-Signature": firecrawlVector.signature });
  });

  it("standard-webhooks: gives the Standard Webhooks library's test vector under the description's header names", () => {
    expect(signWebhook(svix, standardVector.body, standardVector.secret, { id: standardVector.id, timestamp: standardVector.timestamp })).toEqual(standardHeaders());
  });

  it("standard-webhooks: a fresh message id and the current time by default", () => {
    const headers = signWebhook(svix, "{}", standardVector.secret);
    expect(headers["svix-id"]).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(Math.abs(Number(headers["svix-timestamp"]) - Date.now() / 1000)).toBeLessThan(5);
  });

  it("standard-webhooks: a secret that is not base64 is refused with a sentence saying what it must be", () => {
    expect(() => signWebhook(svix, "{}", "whsec_***")).toThrow(/"whsec_" followed by a base64 key/);
  });
});

describe("checkWebhookSignature", () => {
  const check = (scheme: WebhookSignatureScheme, headers: Record<string, string | undefined>, body: string, secret: string, now = atVector) =>
    checkWebhookSignature(scheme, { headers, body }, secret, { now });

  it("hmac-sha256-hex: accepts Firecrawl's vector, whatever the header's case", () => {
    expect(check(firecrawl, { "X-Firecrawl-Signature": firecrawlVector.signature }, firecrawlVector.body, "secret")).toEqual({ ok: true });
    expect(check(firecrawl, { "x-firecrawl-signature": firecrawlVector.signature }, firecrawlVector.body, "secret")).toEqual({ ok: true });
  });

  it("hmac-sha256-hex: a tampered body, a wrong secret, a changed digit or a missing header is refused with its reason", () => {
    const headers = { "x-firecrawl-signature": firecrawlVector.signature };
    expect(check(firecrawl, headers, firecrawlVector.body.replace("crawl-123", "crawl-124"), "secret")).toMatchObject({ ok: false, reason: "invalid_signature" });
    expect(check(firecrawl, headers, firecrawlVector.body, "secreT")).toMatchObject({ ok: false, reason: "invalid_signature" });
    expect(check(firecrawl, { "x-firecrawl-signature": firecrawlVector.signature.replace(/0$/, "1") }, firecrawlVector.body, "secret")).toMatchObject({ ok: false, reason: "invalid_signature" });
    expect(check(firecrawl, {}, firecrawlVector.body, "secret")).toMatchObject({ ok: false, reason: "missing_signature", header: "X-Firecrawl-Signature" });
  });

  it("standard-webhooks: accepts the library's vector at its time, and within the tolerance either side", () => {
    expect(check(svix, standardHeaders(), standardVector.body, standardVector.secret)).toEqual({ ok: true });
    expect(check(svix, standardHeaders(), standardVector.body, standardVector.secret, () => atVector() + 300_000)).toEqual({ ok: true });
    expect(check(svix, standardHeaders(), standardVector.body, standardVector.secret, () => atVector() - 300_000)).toEqual({ ok: true });
  });

  it("standard-webhooks: reads the unbranded webhook- names as the clients do, and refuses a tolerance that would let every timestamp through", () => {
    const unbranded = { "webhook-id": standardVector.id, "webhook-timestamp": String(standardVector.timestamp), "webhook-signature": standardVector.signature };
    expect(check(svix, unbranded, standardVector.body, standardVector.secret)).toEqual({ ok: true });
    for (const toleranceSeconds of [Number.NaN, -1]) {
      expect(() => checkWebhookSignature(svix, { headers: standardHeaders(), body: standardVector.body }, standardVector.secret, { now: () => atVector() + 3_600_000, toleranceSeconds })).toThrow(RangeError);
    }
  });

  it("standard-webhooks: a stale or a future timestamp is refused as out of tolerance", () => {
    expect(check(svix, standardHeaders(), standardVector.body, standardVector.secret, () => atVector() + 301_000)).toMatchObject({ ok: false, reason: "timestamp_out_of_tolerance" });
    expect(check(svix, standardHeaders(), standardVector.body, standardVector.secret, () => atVector() - 301_000)).toMatchObject({ ok: false, reason: "timestamp_out_of_tolerance" });
    expect(checkWebhookSignature(svix, { headers: standardHeaders(), body: standardVector.body }, standardVector.secret, { now: () => atVector() + 600_000, toleranceSeconds: 900 })).toEqual({ ok: true });
  });

  it("standard-webhooks: tampered body, wrong secret, another id or a re-signed timestamp is refused", () => {
    expect(check(svix, standardHeaders(), standardVector.body.replace("2432232314", "2432232315"), standardVector.secret)).toMatchObject({ ok: false, reason: "invalid_signature" });
    expect(check(svix, standardHeaders(), standardVector.body, standardVector.otherSecret)).toMatchObject({ ok: false, reason: "invalid_signature" });
    expect(check(svix, standardHeaders({ "svix-id": "msg_other" }), standardVector.body, standardVector.secret)).toMatchObject({ ok: false, reason: "invalid_signature" });
    expect(check(svix, standardHeaders({ "svix-timestamp": String(standardVector.timestamp + 1) }), standardVector.body, standardVector.secret)).toMatchObject({ ok: false, reason: "invalid_signature" });
  });

  it("standard-webhooks: any v1 signature of several may match; other versions and partial ones never do", () => {
    const rotated = [standardVector.otherSignature, standardVector.otherSignature.replace("v1,", "v2,"), standardVector.signature].join(" ");
    expect(check(svix, standardHeaders({ "svix-signature": rotated }), standardVector.body, standardVector.secret)).toEqual({ ok: true });
    expect(check(svix, standardHeaders({ "svix-signature": standardVector.signature.replace("v1,", "v2,") }), standardVector.body, standardVector.secret)).toMatchObject({ reason: "invalid_signature" });
    expect(check(svix, standardHeaders({ "svix-signature": standardVector.signature.slice(0, 8) }), standardVector.body, standardVector.secret)).toMatchObject({ reason: "invalid_signature" });
    expect(check(svix, standardHeaders({ "svix-signature": "v1," }), standardVector.body, standardVector.secret)).toMatchObject({ reason: "invalid_signature" });
  });

  it("standard-webhooks: each missing header is named, and a timestamp that is not a number is refused", () => {
    for (const header of ["svix-id", "svix-timestamp", "svix-signature"]) {
      expect(check(svix, standardHeaders({ [header]: undefined }), standardVector.body, standardVector.secret)).toMatchObject({ ok: false, reason: "missing_signature", header });
    }
    expect(check(svix, standardHeaders({ "svix-timestamp": "hello" }), standardVector.body, standardVector.secret)).toMatchObject({ ok: false, reason: "invalid_signature", header: "svix-timestamp" });
  });
});

describe("validateDelivery", () => {
  const examples = (validators: OpenApiValidators) =>
    walkWebhooks(validators.document).flatMap((webhook) => webhook.requestBody!.media.flatMap((media) => media.examples.map((example) => ({ webhook, example }))));

  for (const [api, validators, secret] of [
    ["webdata", webdata, "team-secret"],
    ["entitlements", entitlements, standardVector.secret],
  ] as const) {
    it(`${api}: every documented example, signed as the description says, is a valid call`, () => {
      const found = examples(validators);
      expect(found.length).toBeGreaterThanOrEqual(validators.listWebhooks().length);
      for (const { webhook, example } of found) {
        const body = JSON.stringify(example.value);
        const headers = { "content-type": "application/json", ...signWebhook(validators.webhookSignature!, body, secret) };
        const verdict = validators.validateDelivery({ headers, body }, { secret });
        expect(verdict.errors, `${webhook.event} ${example.name}`).toEqual([]);
        expect(verdict).toMatchObject({ event: webhook.event, operationId: webhook.operationId, signature: { ok: true }, payload: example.value });
      }
    });
  }

  const pageBody = JSON.stringify({ success: true, type: "crawl.page", id: "3c1a5d9e-6f2b-4b7a-9d1e-8a2f4c6b0e17", webhookId: "8e0f4a6d-2c9b-4d17-a5e3-6f1b7c8d9e20", data: [{ metadata: { sourceURL: "https://a.example/" } }] });
  const json = { "content-type": "application/json; charset=utf-8" };

  it("accepts a call without checking its signature when no secret is given, bytes or text", () => {
    expect(webdata.validateDelivery({ headers: json, body: pageBody }).errors).toEqual([]);
    expect(webdata.validateDelivery({ headers: json, body: new TextEncoder().encode(pageBody) }).errors).toEqual([]);
  });

  it("names the member of a payload that is off its schema", () => {
    const off = JSON.stringify({ ...JSON.parse(pageBody), success: false });
    expect(webdata.validateDelivery({ headers: json, body: off }).errors).toEqual([expect.objectContaining({ in: "body", path: ["error"], keyword: "required" })]);
    const noId = JSON.stringify({ ...JSON.parse(pageBody), webhookId: undefined });
    expect(webdata.validateDelivery({ headers: json, body: noId }).errors).toEqual([expect.objectContaining({ in: "body", path: ["webhookId"], keyword: "required" })]);
    // A failed page meets the payload's schema twice (the event's allOf and its if/then): one error each.
    const failedNoId = JSON.stringify({ ...JSON.parse(pageBody), success: false, error: "Request timed out", webhookId: undefined });
    expect(webdata.validateDelivery({ headers: json, body: failedNoId }).errors).toEqual([expect.objectContaining({ in: "body", path: ["webhookId"], keyword: "required" })]);
  });

  it("refuses a body that is not JSON, not UTF-8, or names no documented webhook", () => {
    expect(webdata.validateDelivery({ headers: json, body: "{" }).errors).toEqual([expect.objectContaining({ in: "body", keyword: "json" })]);
    expect(webdata.validateDelivery({ headers: json, body: new Uint8Array([0xff, 0xfe]) }).errors).toEqual([expect.objectContaining({ in: "body", keyword: "json" })]);
    // A byte order mark is kept, not dropped while decoding: the bytes are not JSON as sent.
    const marked = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(pageBody)]);
    expect(webdata.validateDelivery({ headers: json, body: marked }).errors).toEqual([expect.objectContaining({ in: "body", keyword: "json" })]);
    const unknown = webdata.validateDelivery({ headers: json, body: JSON.stringify({ type: "crawl.failed" }) });
    expect(unknown.errors).toEqual([expect.objectContaining({ in: "body", path: ["type"], keyword: "enum" })]);
    expect(unknown.errors[0]!.params.allowedValues).toContain("crawl.page");
  });

  it("refuses a Content-Type the webhook does not document, and a header off its schema", () => {
    expect(webdata.validateDelivery({ headers: { "content-type": "text/plain" }, body: pageBody }).errors).toEqual([expect.objectContaining({ in: "header", path: ["content-type"], keyword: "mediaType" })]);
    expect(webdata.validateDelivery({ headers: { ...json, "X-Firecrawl-Signature": "sha256=abc" }, body: pageBody }).errors).toEqual([expect.objectContaining({ in: "header", path: ["x-firecrawl-signature"], keyword: "pattern" })]);
  });

  it("reports a signature that fails with its reason, besides the payload's own problems", () => {
    const verdict = webdata.validateDelivery({ headers: { ...json, "x-firecrawl-signature": signWebhook(firecrawl, pageBody, "other")["X-Firecrawl-Signature"] }, body: pageBody }, { secret: "team-secret" });
    expect(verdict.signature).toMatchObject({ ok: false, reason: "invalid_signature" });
    expect(verdict.errors).toEqual([expect.objectContaining({ in: "header", path: ["x-firecrawl-signature"], keyword: "signature", params: { reason: "invalid_signature" } })]);
    const unsigned = webdata.validateDelivery({ headers: json, body: pageBody }, { secret: "team-secret" });
    expect(unsigned.errors).toEqual([expect.objectContaining({ keyword: "signature", params: { reason: "missing_signature" } })]);
  });

  it("judges Standard Webhooks timestamps by the clock it is given", () => {
    const body = JSON.stringify({ type: "balances.limit_reached", data: { customer_id: "c", feature_id: "f", limit_type: "included" } });
    const headers = { ...json, ...signWebhook(svix, body, standardVector.secret, { timestamp: standardVector.timestamp }) };
    expect(entitlements.validateDelivery({ headers, body }, { secret: standardVector.secret, now: atVector }).errors).toEqual([]);
    expect(entitlements.validateDelivery({ headers, body }, { secret: standardVector.secret, now: () => atVector() + 3_600_000 }).signature).toMatchObject({ reason: "timestamp_out_of_tolerance" });
    const unsigned = entitlements.validateDelivery({ headers: json, body });
    expect(unsigned.errors.map((e) => `${e.in} ${e.path.join(".")} ${e.keyword}`).sort()).toEqual(["header svix-id required", "header svix-signature required", "header svix-timestamp required"]);
  });

  it("works for any description with webhooks, and refuses to check a signature it states no scheme for", () => {
    const tiny: JsonObject = {
      openapi: "3.1.0",
      info: { title: "tiny", version: "1" },
      paths: {},
      webhooks: {
        "thing.done": {
          post: {
            requestBody: { content: { "application/json": { schema: { type: "object", required: ["type"], properties: { type: { const: "thing.done" } } } } } },
            responses: { "2XX": { description: "ok" } },
          },
        },
      },
    };
    const validators = new OpenApiValidators(tiny);
    expect(validators.listWebhooks()).toEqual([{ operationId: "/webhooks/thing.done/post", method: "POST", path: "thing.done", pointer: "/webhooks/thing.done/post", event: "thing.done" }]);
    expect(validators.validateDelivery({ headers: json, body: '{"type":"thing.done"}' })).toMatchObject({ event: "thing.done", errors: [] });
    expect(() => validators.validateDelivery({ headers: json, body: "{}" }, { secret: "s" })).toThrow(/no x-webhook-signature/);
    expect(() => validators.webhook("thing.undone")).toThrow("the description has no webhook thing.undone");
  });
});
