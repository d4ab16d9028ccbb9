import { describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { bodyBytes, checkWebhookSignature, headerValue, signWebhook, timingSafeEqual, type SignatureCheckOptions, type WebhookHeadersInput } from "../src/index.js";
import { firecrawlVector as firecrawl, loadForWebRuntime, standardWebhooksHeaders as standardHeaders, standardWebhooksVector as standard } from "@api-contracts/dev-tools/testing";

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
});

const atVector = () => standard.timestamp * 1000;
const checkFirecrawl = (headers: WebhookHeadersInput, body: string | Uint8Array = firecrawl.body, secret = firecrawl.secret) => checkWebhookSignature(firecrawl.scheme, { headers, body }, secret);
const checkStandard = (headers: WebhookHeadersInput, body: string | Uint8Array = standard.body, secret = standard.secret, options: SignatureCheckOptions = { now: atVector }) =>
  checkWebhookSignature(standard.scheme, { headers, body }, secret, options);

describe("signWebhook", () => {
  it("gives Firecrawl's and the Standard Webhooks library's vectors, from text or bytes", () => {
    expect(signWebhook(firecrawl.scheme, firecrawl.body, firecrawl.secret)).toEqual({ "X-Firecrawl-Signature": firecrawl.signature });
    expect(signWebhook(firecrawl.scheme, new TextEncoder().encode(firecrawl.body), firecrawl.secret)).toEqual({ "X-Firecrawl-Signature": firecrawl.signature });
    expect(signWebhook(standard.scheme, standard.body, standard.secret, { id: standard.id, timestamp: standard.timestamp })).toEqual(standardHeaders());
  });

  it("standard-webhooks: a fresh message id and the current time by default", () => {
    const headers = signWebhook(standard.scheme, "{}", standard.secret);
    expect(headers["svix-id"]).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(Math.abs(Number(headers["svix-timestamp"]) - Date.now() / 1000)).toBeLessThan(5);
    expect(checkStandard(headers, "{}", standard.secret, {})).toEqual({ ok: true });
  });

  it("refuses a missing secret or a Standard Webhooks secret that is not base64, with a TypeError that does not quote it", () => {
    expect(() => signWebhook(firecrawl.scheme, "{}", "")).toThrow(TypeError);
    for (const secret of ["whsec_secret*key", "whsec_", ""]) {
      expect(() => signWebhook(standard.scheme, "{}", secret), secret).toThrow(TypeError);
    }
    expect(() => signWebhook(standard.scheme, "{}", "whsec_secret*key")).toThrow(/^a Standard Webhooks secret is "whsec_" followed by a base64 key, as the service shows it$/);
  });
});

describe("checkWebhookSignature", () => {
  it("hmac-sha256-hex: accepts Firecrawl's vector in any header case and either hex case, as text or bytes", () => {
    expect(checkFirecrawl({ "x-firecrawl-signature": firecrawl.signature })).toEqual({ ok: true });
    expect(checkFirecrawl(new Headers({ "X-Firecrawl-Signature": firecrawl.signature }), new TextEncoder().encode(firecrawl.body))).toEqual({ ok: true });
    expect(checkFirecrawl({ "x-firecrawl-signature": firecrawl.signature.toUpperCase().replace("SHA256=", "sha256=") })).toEqual({ ok: true });
  });

  it("hmac-sha256-hex: a tampered body, another secret, a changed digit, a malformed or a missing signature is refused with its reason", () => {
    const headers = { "x-firecrawl-signature": firecrawl.signature };
    expect(checkFirecrawl(headers, `${firecrawl.body}\n`)).toMatchObject({ ok: false, reason: "invalid_signature", message: "X-Firecrawl-Signature does not match the body and the secret" });
    expect(checkFirecrawl(headers, firecrawl.body, "Secret")).toMatchObject({ reason: "invalid_signature" });
    expect(checkFirecrawl({ "x-firecrawl-signature": firecrawl.signature.replace(/0$/, "1") })).toMatchObject({ reason: "invalid_signature" });
    for (const signature of ["sha256=xyz", "sha1=abc", `${firecrawl.signature}00`, firecrawl.signature.slice(7)]) {
      expect(checkFirecrawl({ "x-firecrawl-signature": signature }), signature).toMatchObject({ reason: "invalid_signature", message: "X-Firecrawl-Signature is not sha256= followed by 64 hexadecimal digits" });
    }
    expect(checkFirecrawl({ "x-firecrawl-signature": " " })).toMatchObject({ reason: "missing_signature", header: "X-Firecrawl-Signature" });
  });

  it("standard-webhooks: accepts the vector within the tolerance either side, under the svix- or the unbranded webhook- names", () => {
    expect(checkStandard(standardHeaders())).toEqual({ ok: true });
    expect(checkStandard(standardHeaders(), standard.body, standard.secret, { now: () => atVector() + 300_000 })).toEqual({ ok: true });
    expect(checkStandard(standardHeaders(), standard.body, standard.secret, { now: () => atVector() - 300_000 })).toEqual({ ok: true });
    expect(checkStandard({ "webhook-id": standard.id, "Webhook-Timestamp": String(standard.timestamp), "WEBHOOK-SIGNATURE": standard.signature })).toEqual({ ok: true });
  });

  it("both schemes sign the body's bytes as received, a byte order mark or bytes that are not UTF-8 included", () => {
    const marked = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(standard.body)]);
    const notText = new Uint8Array([0x7b, 0xff, 0x7d]);
    for (const body of [marked, notText]) {
      const signed = signWebhook(standard.scheme, body, standard.secret, { id: standard.id, timestamp: standard.timestamp });
      expect(checkStandard(signed, body)).toEqual({ ok: true });
      expect(checkStandard(signed, new TextDecoder().decode(body))).toMatchObject({ reason: "invalid_signature" });
      expect(checkFirecrawl(signWebhook(firecrawl.scheme, body, firecrawl.secret), body)).toEqual({ ok: true });
    }
  });

  it("standard-webhooks: a stale or future timestamp is out of tolerance before any signature is computed", () => {
    expect(checkStandard(standardHeaders(), standard.body, standard.secret, { now: () => atVector() + 301_000 })).toMatchObject({ reason: "timestamp_out_of_tolerance" });
    expect(checkStandard(standardHeaders(), standard.body, standard.secret, { now: () => atVector() - 301_000 })).toMatchObject({ reason: "timestamp_out_of_tolerance" });
    expect(checkStandard(standardHeaders({ "svix-signature": "v1,x" }), standard.body, standard.secret, { now: () => atVector() + 3_600_000 })).toMatchObject({ reason: "timestamp_out_of_tolerance" });
    expect(checkStandard(standardHeaders(), standard.body, standard.secret, { now: () => atVector() + 600_000, toleranceSeconds: 900 })).toEqual({ ok: true });
  });

  it("standard-webhooks: refuses a tolerance that is not a finite number >= 0 instead of letting every timestamp through", () => {
    for (const toleranceSeconds of [Number.NaN, -1, Number.POSITIVE_INFINITY]) {
      expect(() => checkStandard(standardHeaders(), standard.body, standard.secret, { now: () => atVector() + 3_600_000, toleranceSeconds })).toThrow(RangeError);
    }
  });

  it("standard-webhooks: a tampered body, another secret, another id or a re-stamped timestamp is refused", () => {
    expect(checkStandard(standardHeaders(), standard.body.replace("2432232314", "2432232315"))).toMatchObject({ reason: "invalid_signature" });
    expect(checkStandard(standardHeaders(), standard.body, standard.otherSecret)).toMatchObject({ reason: "invalid_signature" });
    expect(checkStandard(standardHeaders({ "svix-id": "msg_other" }))).toMatchObject({ reason: "invalid_signature" });
    expect(checkStandard(standardHeaders({ "svix-timestamp": String(standard.timestamp + 1) }))).toMatchObject({ reason: "invalid_signature" });
  });

  it("standard-webhooks: any v1 signature of several may match; other versions and partial ones never do", () => {
    const rotated = [standard.otherSignature, standard.signature.replace("v1,", "v2,"), standard.signature].join(" ");
    expect(checkStandard(standardHeaders({ "svix-signature": rotated }))).toEqual({ ok: true });
    for (const signature of [standard.signature.replace("v1,", "v2,"), standard.signature.slice(0, 8), "v1,", standard.otherSignature]) {
      expect(checkStandard(standardHeaders({ "svix-signature": signature })), signature).toMatchObject({ reason: "invalid_signature" });
    }
  });

  it("standard-webhooks: each missing header is named, and a timestamp that is not a number of seconds is refused", () => {
    for (const header of ["svix-id", "svix-timestamp", "svix-signature"]) {
      expect(checkStandard(standardHeaders({ [header]: undefined }))).toEqual({ ok: false, reason: "missing_signature", header, message: `${header} is missing` });
    }
    expect(checkStandard(standardHeaders({ "svix-timestamp": "2021-02-25T15:02:10Z" }))).toMatchObject({ reason: "invalid_signature", header: "svix-timestamp" });
  });

  it("runs synchronously with nothing but web-standard globals (no Node built-in)", async () => {
    const here = fileURLToPath(new URL(".", import.meta.url));
    const bundled = await loadForWebRuntime<{ signWebhook: typeof signWebhook; checkWebhookSignature: typeof checkWebhookSignature }>(here, "@api-contracts/webhook-signatures", ["signWebhook", "checkWebhookSignature"]);
    expect(bundled.signWebhook(firecrawl.scheme, firecrawl.body, firecrawl.secret)).toEqual({ "X-Firecrawl-Signature": firecrawl.signature });
    expect(bundled.checkWebhookSignature(standard.scheme, { headers: standardHeaders(), body: standard.body }, standard.secret, { now: atVector })).toEqual({ ok: true });
  });
});
