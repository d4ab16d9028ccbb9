import { describe, expect, it } from "vitest";
import { WebhookVerificationError, bodyBytes, headerValue, parseWebhookEvent, shapeMismatch, timingSafeEqual, verifyHmacSha256Hex, type WebhookShape } from "../src/index.js";

describe("checking a payload against its shape", () => {
  const shape: WebhookShape = { type: "object", members: { type: { type: "string", const: "thing.done" }, items: { type: "array", items: { type: "object", members: { size: { type: ["number", "null"] } } } } } };

  it("names the first member that is missing or of another type, array positions included", () => {
    expect(shapeMismatch({ type: "thing.done", items: [{ size: 1 }, { size: null }] }, shape)).toBeUndefined();
    expect(shapeMismatch({ type: "thing.done", items: [{ size: 1 }, {}] }, shape)).toBe("items[1].size is missing");
    expect(shapeMismatch({ type: "thing.done", items: [{ size: "1" }] }, shape)).toBe("items[0].size must be number or null");
    expect(shapeMismatch({ type: "thing.undone", items: [] }, shape)).toBe('type must be "thing.done"');
    expect(shapeMismatch([], shape)).toBe("the body must be object");
  });

  it("parses only JSON naming a known event, and never reads an inherited member as an event", () => {
    const shapes = { "thing.done": shape };
    expect(parseWebhookEvent('{"type":"thing.done","items":[]}', shapes)).toEqual({ type: "thing.done", items: [] });
    for (const text of ["{", '{"type":"toString"}', '{"type":"constructor"}', "null"]) {
      expect(() => parseWebhookEvent(text, shapes), text).toThrow(WebhookVerificationError);
    }
  });
});

describe("reading a received call", () => {
  it("finds a header in any case in a record or a Headers, joining repeated values", () => {
    expect(headerValue({ "X-Sig": "a" }, "x-sig")).toBe("a");
    expect(headerValue({ "x-sig": ["a", "b"] }, "X-SIG")).toBe("a, b");
    expect(headerValue(new Headers({ "x-sig": "a" }), "X-Sig")).toBe("a");
    expect(headerValue({}, "x-sig")).toBeUndefined();
  });

  it("gives the exact bytes of text, a view into a larger buffer, or an ArrayBuffer", () => {
    const buffer = new TextEncoder().encode("..{}..");
    expect(new TextDecoder().decode(bodyBytes(buffer.subarray(2, 4)))).toBe("{}");
    expect(bodyBytes("é")).toEqual(new Uint8Array([0xc3, 0xa9]));
    expect(bodyBytes(new Uint8Array([1, 2]).buffer)).toEqual(new Uint8Array([1, 2]));
    expect(() => bodyBytes({} as never)).toThrow(TypeError);
  });

  it("compares byte strings of equal length in full, and strings of other lengths as different", () => {
    expect(timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(timingSafeEqual(new Uint8Array([1]), new Uint8Array([1, 2]))).toBe(false);
  });

  it("an hmac-sha256-hex signature is checked over the raw bytes with WebCrypto", async () => {
    const scheme = { scheme: "hmac-sha256-hex", signatureHeader: "X-Firecrawl-Signature", prefix: "sha256=" } as const;
    // Firecrawl's own test vector.
    const body = '{"success":true,"type":"crawl.page","id":"crawl-123","webhookId":"webhook-123","data":[]}';
    const signature = "sha256=29729c39fd5f57c6f4d50c86dd20256a5d77b7b39d19531c17805163fb830d40";
    await expect(verifyHmacSha256Hex(scheme, body, { "x-firecrawl-signature": signature }, "secret")).resolves.toBeUndefined();
    await expect(verifyHmacSha256Hex(scheme, body, { "x-firecrawl-signature": signature.toUpperCase().replace("SHA256=", "sha256=") }, "secret")).resolves.toBeUndefined();
    await expect(verifyHmacSha256Hex(scheme, `${body}\n`, { "x-firecrawl-signature": signature }, "secret")).rejects.toMatchObject({ reason: "invalid_signature" });
  });
});
