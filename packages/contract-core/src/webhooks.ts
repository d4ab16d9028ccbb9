import type { HmacSha256HexScheme, StandardWebhooksScheme } from "@api-contracts/client-runtime/webhooks";
import { escapePointer, follow, isObject, type JsonObject } from "./pointer.js";
import { walkOperation, type WalkedOperation } from "./walk.js";

/**
 * One webhook of a description: the call the service makes to a receiver when `event` happens.
 * `path` holds the event too (a webhook has no path), and `method` is the call's (`POST`).
 */
export interface WalkedWebhook extends WalkedOperation {
  /** The key under `webhooks`, which is also the payload's `type`: `crawl.page`. */
  event: string;
}

/** Every webhook of an OpenAPI 3.1 document, in the order they are written, `$ref`s followed. */
export function walkWebhooks(document: JsonObject): WalkedWebhook[] {
  const webhooks: WalkedWebhook[] = [];
  for (const [event, raw] of Object.entries(isObject(document.webhooks) ? document.webhooks : {})) {
    const item = follow(document, raw, `/webhooks/${escapePointer(event)}`);
    if (!isObject(item.node)) continue;
    for (const method of ["post", "put", "patch", "get", "delete"]) {
      const walked = walkOperation(document, item.pointer, method, event);
      if (walked) webhooks.push({ ...walked, event });
    }
  }
  return webhooks;
}

// Signing and checking a call are written once, in client-runtime, which the clients' verifyWebhook
// use too: one implementation of both schemes and of the constant-time comparison, synchronous and
// free of Node built-ins (validateDelivery runs in the docs console's browser as well).
export {
  signWebhook,
  checkWebhookSignature,
  type SignOptions,
  type SignatureFailure,
  type SignatureCheck,
  type SignatureCheckOptions,
} from "@api-contracts/client-runtime/webhooks";

/**
 * How a description's webhook calls are signed: its root `x-webhook-signature`. `hmac-sha256-hex`:
 * `signatureHeader` is `prefix` followed by the lower-case hex HMAC-SHA256 of the raw body, keyed
 * with the secret's UTF-8 bytes. `standard-webhooks`: `v1,<base64 HMAC-SHA256 of id.timestamp.body>`
 * under the given header names, keyed with the base64 key after `whsec_`.
 */
export type WebhookSignatureScheme = (HmacSha256HexScheme | StandardWebhooksScheme) & { description?: string };

export const WEBHOOK_SIGNATURE_SCHEMES = ["hmac-sha256-hex", "standard-webhooks"] as const;

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
  throw new Error(`x-webhook-signature: unknown scheme ${JSON.stringify(raw.scheme)} (known: ${WEBHOOK_SIGNATURE_SCHEMES.join(", ")})`);
}

/** Header values of a received call by name, in any case; a repeated header may come as a list. */
export type WebhookHeaders = Record<string, string | readonly string[] | undefined>;

/** Lower-case names, one string per header (a repeated header's values joined with `, `, as HTTP combines them). */
export function normalizeHeaders(headers: WebhookHeaders): Record<string, string> {
  const normalized: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const joined = typeof value === "string" ? value : value.join(", ");
    const key = name.toLowerCase();
    normalized[key] = key in normalized ? `${normalized[key]}, ${joined}` : joined;
  }
  return normalized;
}

