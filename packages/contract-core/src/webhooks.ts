import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { Webhook as StandardWebhook } from "standardwebhooks";
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

/** How a description's webhook calls are signed: its root `x-webhook-signature`. */
export type WebhookSignatureScheme =
  | {
      /** `signatureHeader` is `prefix` followed by the lower-case hex HMAC-SHA256 of the raw body, keyed with the secret's UTF-8 bytes. */
      scheme: "hmac-sha256-hex";
      signatureHeader: string;
      prefix: string;
      description?: string;
    }
  | {
      /** Standard Webhooks under the given header names: `v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the base64 key after `whsec_`. */
      scheme: "standard-webhooks";
      idHeader: string;
      timestampHeader: string;
      signatureHeader: string;
      /** How far a call's timestamp (seconds) may be from the receiver's clock. */
      toleranceSeconds: number;
      description?: string;
    };

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

export interface SignOptions {
  /** Standard Webhooks: the message id (default `msg_` and a random UUID without dashes). */
  id?: string;
  /** Standard Webhooks: when the call is signed, in seconds since the epoch (default now). */
  timestamp?: number;
}

function standardWebhook(secret: string): StandardWebhook {
  try {
    return new StandardWebhook(secret);
  } catch (error) {
    throw new Error(`a Standard Webhooks secret is "whsec_" followed by a base64 key (${error instanceof Error ? error.message : String(error)})`);
  }
}

/**
 * The headers that sign a call whose raw body is `body`, as the service would send them: for
 * `hmac-sha256-hex` the signature header; for `standard-webhooks` the id, timestamp and signature
 * headers. A server or a mock that delivers webhooks sends these with the body unchanged.
 */
export function signWebhook(scheme: WebhookSignatureScheme, body: string, secret: string, options: SignOptions = {}): Record<string, string> {
  if (scheme.scheme === "hmac-sha256-hex") {
    return { [scheme.signatureHeader]: `${scheme.prefix}${createHmac("sha256", secret).update(body, "utf8").digest("hex")}` };
  }
  const id = options.id ?? `msg_${randomUUID().replaceAll("-", "")}`;
  const timestamp = Math.floor(options.timestamp ?? Date.now() / 1000);
  return {
    [scheme.idHeader]: id,
    [scheme.timestampHeader]: String(timestamp),
    [scheme.signatureHeader]: standardWebhook(secret).sign(id, new Date(timestamp * 1000), body),
  };
}

/** Why a call's signature was not accepted. */
export type SignatureFailure = "missing_signature" | "invalid_signature" | "timestamp_out_of_tolerance";

export type SignatureCheck = { ok: true } | { ok: false; reason: SignatureFailure; header: string; message: string };

export interface SignatureCheckOptions {
  /** The receiver's clock, in epoch milliseconds (default `Date.now`). */
  now?: () => number;
  /** Standard Webhooks: overrides the scheme's `toleranceSeconds`. */
  toleranceSeconds?: number;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Checks the signature of a received call: `body` exactly as received (before any parsing), its
 * headers, and the secret the receiver holds. Comparisons take constant time.
 */
export function checkWebhookSignature(scheme: WebhookSignatureScheme, delivery: { headers: WebhookHeaders; body: string }, secret: string, options: SignatureCheckOptions = {}): SignatureCheck {
  const headers = normalizeHeaders(delivery.headers);
  const signatureHeader = scheme.signatureHeader;
  const received = headers[signatureHeader.toLowerCase()];
  if (scheme.scheme === "hmac-sha256-hex") {
    if (received === undefined || received === "") return { ok: false, reason: "missing_signature", header: signatureHeader, message: `${signatureHeader} is missing` };
    const expected = signWebhook(scheme, delivery.body, secret)[signatureHeader]!;
    return sameText(received.trim(), expected) ? { ok: true } : { ok: false, reason: "invalid_signature", header: signatureHeader, message: `${signatureHeader} does not match the body and the secret` };
  }
  const id = headers[scheme.idHeader.toLowerCase()];
  const timestampText = headers[scheme.timestampHeader.toLowerCase()];
  for (const [name, value] of [[scheme.idHeader, id], [scheme.timestampHeader, timestampText], [signatureHeader, received]] as const) {
    if (value === undefined || value === "") return { ok: false, reason: "missing_signature", header: name, message: `${name} is missing` };
  }
  if (!/^\d{1,15}$/.test(timestampText!.trim())) return { ok: false, reason: "invalid_signature", header: scheme.timestampHeader, message: `${scheme.timestampHeader} is not a number of seconds` };
  const timestamp = Number(timestampText!.trim());
  const now = Math.floor((options.now ?? Date.now)() / 1000);
  const tolerance = options.toleranceSeconds ?? scheme.toleranceSeconds;
  if (Math.abs(now - timestamp) > tolerance) {
    return { ok: false, reason: "timestamp_out_of_tolerance", header: scheme.timestampHeader, message: `${scheme.timestampHeader} is ${now - timestamp} s from now, more than ${tolerance} s` };
  }
  const expectedSignature = signWebhook(scheme, delivery.body, secret, { id: id!, timestamp })[signatureHeader]!;
  // Several space-separated signatures are sent while a secret is rotated: any v1 one may match.
  const matches = received!
    .split(" ")
    .filter((candidate) => candidate.startsWith("v1,"))
    .map((candidate) => sameText(candidate, expectedSignature));
  return matches.includes(true) ? { ok: true } : { ok: false, reason: "invalid_signature", header: signatureHeader, message: `no v1 signature in ${signatureHeader} matches the id, timestamp, body and secret` };
}
