import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifyWebhook, WebhookVerificationError, type WebdataWebhookEvent } from "../src/webhooks.js";
import { failureReason, firecrawlVector as vector, loadBundle, webhookExamples } from "@api-contracts/dev-tools/testing";
const sign = (body: string, secret = "team-secret") => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

const failure = (...args: Parameters<typeof verifyWebhook>) => failureReason(verifyWebhook(...args));

describe("verifyWebhook (web data)", () => {
  it("accepts Firecrawl's own test vector and returns the event", async () => {
    const event = await verifyWebhook(vector.body, { "X-Firecrawl-Signature": vector.signature }, vector.secret);
    expect(event).toEqual(JSON.parse(vector.body));
    expect(event.type).toBe("crawl.page");
  });

  it("accepts every documented example of every webhook, signed, and returns it unchanged", async () => {
    const examples = webhookExamples(loadBundle("webdata"));
    for (const { event, value } of examples) {
      const body = JSON.stringify(value);
      const verified: WebdataWebhookEvent = await verifyWebhook(body, { "x-firecrawl-signature": sign(body) }, "team-secret");
      expect(verified, event).toEqual(value);
    }
    expect(examples.length).toBeGreaterThanOrEqual(6);
  });

  it("reads the raw body as text, bytes, a Buffer or an ArrayBuffer, and headers as Headers or a record in any case", async () => {
    const bytes = new TextEncoder().encode(vector.body);
    for (const body of [vector.body, bytes, Buffer.from(vector.body), bytes.buffer]) {
      expect(await failure(body, new Headers({ "x-firecrawl-signature": vector.signature }), vector.secret)).toBeUndefined();
    }
    expect(await failure(vector.body, { "X-FIRECRAWL-SIGNATURE": vector.signature }, vector.secret)).toBeUndefined();
    expect(await failure(vector.body, { "x-firecrawl-signature": [vector.signature] }, vector.secret)).toBeUndefined();
  });

  it("refuses a tampered body, a wrong secret and a changed signature as invalid_signature", async () => {
    const headers = { "x-firecrawl-signature": vector.signature };
    expect(await failure(vector.body.replace("crawl-123", "crawl-124"), headers, vector.secret)).toBe("invalid_signature");
    expect(await failure(`${vector.body} `, headers, vector.secret)).toBe("invalid_signature");
    expect(await failure(vector.body, headers, "Secret")).toBe("invalid_signature");
    expect(await failure(vector.body, { "x-firecrawl-signature": vector.signature.replace(/0$/, "1") }, vector.secret)).toBe("invalid_signature");
  });

  it("refuses a signature that is not sha256= and 64 hex digits as invalid_signature, and none at all as missing_signature", async () => {
    for (const signature of [vector.signature.slice("sha256=".length), "sha1=abc", "sha256=xyz", `${vector.signature}00`, "sha256="]) {
      expect(await failure(vector.body, { "x-firecrawl-signature": signature }, vector.secret), signature).toBe("invalid_signature");
    }
    expect(await failure(vector.body, {}, vector.secret)).toBe("missing_signature");
    expect(await failure(vector.body, { "x-firecrawl-signature": "" }, vector.secret)).toBe("missing_signature");
  });

  it("refuses a correctly signed body that is not a documented event as invalid_body, naming what is wrong", async () => {
    const cases = {
      "not JSON": ["{", /not JSON/],
      "an event no webhook has": ['{"success":false,"type":"crawl.failed","id":"a","webhookId":"b","data":[]}', /type is not one of crawl\.started, crawl\.page/],
      "without webhookId": ['{"success":true,"type":"crawl.started","id":"a","data":[]}', /webhookId is missing/],
      "a record without metadata": ['{"success":true,"type":"crawl.page","id":"a","webhookId":"b","data":[{"markdown":"x"}]}', /data\[0\]\.metadata is missing/],
      "success as a string": ['{"success":"true","type":"crawl.started","id":"a","webhookId":"b","data":[]}', /success must be boolean/],
      "a list": ["[]", /type is not one of/],
    } as const;
    for (const [name, [body, message]] of Object.entries(cases)) {
      const error = await verifyWebhook(body, { "x-firecrawl-signature": sign(body) }, "team-secret").catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(WebhookVerificationError);
      expect((error as WebhookVerificationError).reason, name).toBe("invalid_body");
      expect((error as Error).message, name).toMatch(message);
    }
  });

  it("checks the signature before it reads the body, and needs a secret", async () => {
    expect(await failure("{", { "x-firecrawl-signature": vector.signature }, vector.secret)).toBe("invalid_signature");
    await expect(verifyWebhook(vector.body, { "x-firecrawl-signature": vector.signature }, "")).rejects.toThrow(TypeError);
  });
});
