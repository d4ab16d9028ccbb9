import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { verifyWebhook, WebhookVerificationError, type EntitlementsWebhookEvent, type VerifyWebhookOptions } from "../src/webhooks.js";
import { failureReason, loadBundle, standardWebhooksVector as vector, webhookExamples } from "@api-contracts/dev-tools/testing";
const at = (seconds: number) => () => seconds * 1000;
const atVector = at(vector.timestamp);
const limitReached = '{"type":"balances.limit_reached","data":{"customer_id":"cus_1","feature_id":"messages","limit_type":"included"}}';

/** Headers the service's sender would attach to `body`, signed with `secret` at `timestamp` (seconds). */
function signed(body: string, secret = vector.secret, timestamp = vector.timestamp, id = vector.id): Record<string, string> {
  return { "svix-id": id, "svix-timestamp": String(timestamp), "svix-signature": new Webhook(secret).sign(id, new Date(timestamp * 1000), body) };
}

const failure = (body: string | Uint8Array, headers: Record<string, string | undefined> | Headers, secret = vector.secret, options: VerifyWebhookOptions = { now: atVector }) =>
  failureReason(verifyWebhook(body, headers as Record<string, string>, secret, options));

describe("verifyWebhook (entitlements)", () => {
  it("signs as the Standard Webhooks test vector says, and accepts that signature", async () => {
    // The library's vector signs a body that is no event of this API: the signature passes, the shape does not.
    const body = vector.body;
    expect(signed(body)["svix-signature"]).toBe(vector.signature);
    expect(await failure(body, signed(body))).toBe("invalid_body");
    expect(await failure(limitReached, signed(limitReached))).toBeUndefined();
  });

  it("accepts every documented example of every webhook, signed, and returns it unchanged", async () => {
    const examples = webhookExamples(loadBundle("entitlements"));
    for (const { event, value } of examples) {
      const body = JSON.stringify(value);
      const verified: EntitlementsWebhookEvent = await verifyWebhook(body, signed(body), vector.secret, { now: atVector });
      expect(verified, event).toEqual(value);
    }
    expect(examples.length).toBeGreaterThanOrEqual(3);
  });

  it("agrees with the library's own verify on a fresh call and on a tampered one", async () => {
    const now = Math.floor(Date.now() / 1000);
    const headers = signed(limitReached, vector.secret, now);
    const unbranded = { "webhook-id": headers["svix-id"]!, "webhook-timestamp": headers["svix-timestamp"]!, "webhook-signature": headers["svix-signature"]! };
    expect(new Webhook(vector.secret).verify(limitReached, unbranded)).toEqual(JSON.parse(limitReached));
    expect(await verifyWebhook(limitReached, headers, vector.secret)).toEqual(JSON.parse(limitReached));
    const tampered = limitReached.replace("included", "spend_limit");
    expect(() => new Webhook(vector.secret).verify(tampered, unbranded)).toThrow();
    expect(await failure(tampered, headers, vector.secret, {})).toBe("invalid_signature");
  });

  it("reads the svix- headers or their unbranded webhook- names, in any case, from Headers or a record, and bytes as well as text", async () => {
    const headers = signed(limitReached);
    const unbranded = { "Webhook-Id": headers["svix-id"], "WEBHOOK-TIMESTAMP": headers["svix-timestamp"], "webhook-signature": headers["svix-signature"] };
    expect(await failure(limitReached, unbranded)).toBeUndefined();
    expect(await failure(limitReached, new Headers(headers))).toBeUndefined();
    expect(await failure(new TextEncoder().encode(limitReached), headers)).toBeUndefined();
  });

  it("refuses a tampered body, a wrong secret, another id and a re-stamped timestamp as invalid_signature", async () => {
    const headers = signed(limitReached);
    expect(await failure(limitReached.replace("cus_1", "cus_2"), headers)).toBe("invalid_signature");
    expect(await failure(limitReached, headers, vector.otherSecret)).toBe("invalid_signature");
    expect(await failure(limitReached, { ...headers, "svix-id": "msg_other" })).toBe("invalid_signature");
    expect(await failure(limitReached, { ...headers, "svix-timestamp": String(vector.timestamp + 1) })).toBe("invalid_signature");
  });

  it("accepts any v1 signature of several (a rotated secret), and never a v2 or a truncated one", async () => {
    const valid = signed(limitReached)["svix-signature"]!;
    const rotated = [vector.otherSignature, valid.replace("v1,", "v2,"), valid].join(" ");
    expect(await failure(limitReached, { ...signed(limitReached), "svix-signature": rotated })).toBeUndefined();
    for (const signature of [valid.replace("v1,", "v2,"), valid.slice(0, 8), "v1,", vector.otherSignature]) {
      expect(await failure(limitReached, { ...signed(limitReached), "svix-signature": signature }), signature).toBe("invalid_signature");
    }
  });

  it("refuses a stale or a future timestamp as timestamp_out_of_tolerance, within 300 s by default or the tolerance given", async () => {
    const headers = signed(limitReached);
    expect(await failure(limitReached, headers, vector.secret, { now: at(vector.timestamp + 300) })).toBeUndefined();
    expect(await failure(limitReached, headers, vector.secret, { now: at(vector.timestamp - 300) })).toBeUndefined();
    expect(await failure(limitReached, headers, vector.secret, { now: at(vector.timestamp + 301) })).toBe("timestamp_out_of_tolerance");
    expect(await failure(limitReached, headers, vector.secret, { now: at(vector.timestamp - 301) })).toBe("timestamp_out_of_tolerance");
    expect(await failure(limitReached, headers, vector.secret, { now: at(vector.timestamp + 600), toleranceSeconds: 900 })).toBeUndefined();
    expect(await failure(limitReached, headers, vector.secret, { now: at(vector.timestamp + 10), toleranceSeconds: 5 })).toBe("timestamp_out_of_tolerance");
    // A stale call is refused before its signature is computed: a wrong signature does not change the reason.
    expect(await failure(limitReached, { ...headers, "svix-signature": "v1,x" }, vector.secret, { now: at(vector.timestamp + 3600) })).toBe("timestamp_out_of_tolerance");
  });

  it("refuses a tolerance that is not a finite number >= 0 (NaN from an unset setting would let every timestamp through)", async () => {
    const headers = signed(limitReached);
    for (const toleranceSeconds of [Number.NaN, -1, Number.POSITIVE_INFINITY]) {
      await expect(verifyWebhook(limitReached, headers, vector.secret, { now: at(vector.timestamp + 3600), toleranceSeconds })).rejects.toThrow(RangeError);
    }
  });

  it("names each missing header, and refuses a timestamp that is not a number of seconds", async () => {
    for (const header of ["svix-id", "svix-timestamp", "svix-signature"]) {
      const error = await verifyWebhook(limitReached, { ...signed(limitReached), [header]: undefined } as Record<string, string>, vector.secret, { now: atVector }).catch((e: unknown) => e);
      expect(error).toMatchObject({ reason: "missing_signature", message: `${header} is missing` });
    }
    expect(await failure(limitReached, { ...signed(limitReached), "svix-timestamp": "2021-02-25T15:02:10Z" })).toBe("invalid_signature");
  });

  it("refuses a correctly signed body that is not a documented event as invalid_body, naming what is wrong", async () => {
    const cases = {
      "not JSON": ["{", /not JSON/],
      "an event about plans": ['{"type":"billing.updated","data":{}}', /type is not one of balances\.limit_reached, balances\.usage_alert_triggered/],
      "without data": ['{"type":"balances.limit_reached"}', /data is missing/],
      "an alert without its threshold": ['{"type":"balances.usage_alert_triggered","data":{"customer_id":"c","feature_id":"f","usage_alert":{"threshold_type":"usage"}}}', /data\.usage_alert\.threshold is missing/],
    } as const;
    for (const [name, [body, message]] of Object.entries(cases)) {
      const error = await verifyWebhook(body, signed(body), vector.secret, { now: atVector }).catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(WebhookVerificationError);
      expect(error, name).toMatchObject({ reason: "invalid_body", message: expect.stringMatching(message) });
    }
  });

  it("a missing or malformed secret is a TypeError, not a verification failure", async () => {
    await expect(verifyWebhook(limitReached, signed(limitReached), "")).rejects.toThrow(TypeError);
    await expect(verifyWebhook(limitReached, signed(limitReached), "whsec_***")).rejects.toThrow(/"whsec_" followed by a base64 key/);
  });
});
