import type { HmacSha256HexScheme, StandardWebhooksScheme } from "@api-contracts/webhook-signatures";
import { isObject, type JsonObject } from "../document/pointer.js";

// Signing and checking a call are written once, in @api-contracts/webhook-signatures, which the
// clients' verifyWebhook use too: one implementation of both schemes and of the constant-time
// comparison, synchronous and free of Node built-ins (validateDelivery runs in the docs console's
// browser as well).
export { signWebhook } from "@api-contracts/webhook-signatures";

/**
 * How a description's webhook calls are signed: its root `x-webhook-signature`. `hmac-sha256-hex`:
 * `signatureHeader` is `prefix` followed by the lower-case hex HMAC-SHA256 of the raw body, keyed
 * with the secret's UTF-8 bytes. `standard-webhooks`: `v1,<base64 HMAC-SHA256 of id.timestamp.body>`
 * under the given header names, keyed with the base64 key after `whsec_`.
 */
export type WebhookSignatureScheme = (HmacSha256HexScheme | StandardWebhooksScheme) & { description?: string };

const text = (value: unknown, where: string): string => {
  if (typeof value !== "string" || value === "") throw new Error(`x-webhook-signature: ${where} must be a non-empty string`);
  return value;
};

/** The signature scheme a description states (`x-webhook-signature`); undefined when it states none. Throws on a malformed one. */
export function webhookSignatureScheme(document: JsonObject): WebhookSignatureScheme | undefined {
  const raw = document["x-webhook-signature"];
  if (raw === undefined) return undefined;
  if (!isObject(raw)) throw new Error("x-webhook-signature must be an object");
  const description = typeof raw.description === "string" ? raw.description : undefined;
  if (raw.scheme === "hmac-sha256-hex") {
    return { scheme: raw.scheme, signatureHeader: text(raw.signatureHeader, "signatureHeader"), prefix: typeof raw.prefix === "string" ? raw.prefix : "", description };
  }
  if (raw.scheme === "standard-webhooks") {
    const tolerance = raw.toleranceSeconds;
    if (typeof tolerance !== "number" || !Number.isFinite(tolerance) || tolerance < 0) throw new Error("x-webhook-signature: toleranceSeconds must be a number of seconds");
    return {
      scheme: raw.scheme,
      idHeader: text(raw.idHeader, "idHeader"),
      timestampHeader: text(raw.timestampHeader, "timestampHeader"),
      signatureHeader: text(raw.signatureHeader, "signatureHeader"),
      toleranceSeconds: tolerance,
      description,
    };
  }
  throw new Error(`x-webhook-signature: unknown scheme ${JSON.stringify(raw.scheme)} (known: hmac-sha256-hex, standard-webhooks)`);
}
