// Webhook signatures, written once for every package of this project: the clients' `verifyWebhook`
// (through @api-contracts/client-runtime/webhooks) and contract-core's signing and judging of calls
// (which the kit, the proxy, the servers and the docs use). Firecrawl's hex HMAC-SHA256 and
// Standard Webhooks (Autumn's svix- headers) are signed and checked here, and compared in constant
// time.
//
// Everything here is synchronous and imports no Node built-in: contract-core's judgement is
// synchronous (its callers rely on that, the docs console among them, in a browser), and WebCrypto's
// HMAC is only asynchronous, so the HMAC is fast-sha256's (plain JavaScript, the one the Standard
// Webhooks reference library uses) and base64 is the platform's atob/btoa. It runs in Node,
// browsers, Bun, Deno and edge runtimes alike. A secret is never part of a message.
import { hmac } from "fast-sha256";

/** The raw body of a received call, before any parsing: the signature is computed over these bytes. */
export type WebhookBody = string | Uint8Array | ArrayBuffer;

/** A received call's headers: a Fetch `Headers`, or a record by name in any case (Node's `req.headers`). */
export type WebhookHeadersInput = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** The value of header `name` (any case), a repeated header's values joined with `, `; undefined when absent. */
export function headerValue(headers: WebhookHeadersInput, name: string): string | undefined {
  const fetchHeaders = headers as Headers;
  if (typeof fetchHeaders.get === "function" && typeof fetchHeaders.has === "function") return fetchHeaders.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  const values = Object.entries(headers as Record<string, string | readonly string[] | undefined>)
    .filter(([key, value]) => key.toLowerCase() === wanted && value !== undefined)
    .map(([, value]) => (typeof value === "string" ? value : value!.join(", ")));
  return values.length > 0 ? values.join(", ") : undefined;
}

const encoder = new TextEncoder();

/** The body as bytes, exactly as received. */
export function bodyBytes(body: WebhookBody): Uint8Array {
  if (typeof body === "string") return encoder.encode(body);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError("verifyWebhook needs the raw body as a string, a Uint8Array (a Buffer is one) or an ArrayBuffer, before any JSON parsing");
}

/** The body as text (UTF-8). */
export function bodyText(body: WebhookBody): string {
  return typeof body === "string" ? body : new TextDecoder().decode(bodyBytes(body));
}

/** Whether two byte strings are equal, in a time that depends only on their lengths. */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

const sameText = (a: string, b: string) => timingSafeEqual(encoder.encode(a), encoder.encode(b));

/** `hmac-sha256-hex` (Firecrawl's): `signatureHeader` holds `prefix` and the lower-case hex HMAC-SHA256 of the raw body, keyed with the secret's UTF-8 bytes. */
export interface HmacSha256HexScheme {
  readonly scheme: "hmac-sha256-hex";
  readonly signatureHeader: string;
  readonly prefix: string;
}

/** Standard Webhooks under the given header names (Autumn's `svix-`): `v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the base64 key after `whsec_`. */
export interface StandardWebhooksScheme {
  readonly scheme: "standard-webhooks";
  readonly idHeader: string;
  readonly timestampHeader: string;
  readonly signatureHeader: string;
  /** How far a call's timestamp (seconds) may be from the receiver's clock. */
  readonly toleranceSeconds: number;
}

/** How a description's webhook calls are signed (its root `x-webhook-signature`). */
export type WebhookSignatureScheme = HmacSha256HexScheme | StandardWebhooksScheme;

/** The Standard Webhooks names of the three headers, which a sender may use instead of its branded ones. */
const UNBRANDED = { id: "webhook-id", timestamp: "webhook-timestamp", signature: "webhook-signature" } as const;

function requireSecret(secret: unknown): string {
  if (typeof secret !== "string" || secret === "") throw new TypeError("a webhook secret must be a non-empty string");
  return secret;
}

/** The key of a Standard Webhooks secret: the base64 after `whsec_`. */
function standardKey(secret: string): Uint8Array {
  let key: Uint8Array | undefined;
  try {
    key = Uint8Array.from(atob(requireSecret(secret).replace(/^whsec_/, "")), (char) => char.charCodeAt(0));
  } catch {
    // atob's own error is not shown: it may quote the secret.
  }
  if (!key?.length) throw new TypeError('a Standard Webhooks secret is "whsec_" followed by a base64 key, as the service shows it');
  return key;
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

function hexBytes(text: string): Uint8Array | undefined {
  if (!/^([0-9a-fA-F]{2})+$/.test(text)) return undefined;
  return Uint8Array.from(text.match(/../g)!, (pair) => Number.parseInt(pair, 16));
}

/** The hex-scheme's HMAC-SHA256 of the raw body. */
function bodyMac(body: WebhookBody, secret: string): Uint8Array {
  return hmac(encoder.encode(requireSecret(secret)), bodyBytes(body));
}

/** The Standard Webhooks signature `v1,<base64>` of `id.timestamp.body`, over the body's bytes as received. */
function standardSignature(key: Uint8Array, id: string, timestamp: number, body: WebhookBody): string {
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const bytes = bodyBytes(body);
  const message = new Uint8Array(prefix.length + bytes.length);
  message.set(prefix);
  message.set(bytes, prefix.length);
  return `v1,${base64(hmac(key, message))}`;
}

export interface SignOptions {
  /** Standard Webhooks: the message id (default `msg_` and a random UUID without dashes). */
  id?: string;
  /** Standard Webhooks: when the call is signed, in seconds since the epoch (default now). */
  timestamp?: number;
}

/**
 * The headers that sign a call whose raw body is `body`, as the service would send them: for
 * `hmac-sha256-hex` the signature header; for `standard-webhooks` the id, timestamp and signature
 * headers. A server or a mock that delivers webhooks sends these with the body unchanged.
 */
export function signWebhook(scheme: WebhookSignatureScheme, body: WebhookBody, secret: string, options: SignOptions = {}): Record<string, string> {
  if (scheme.scheme === "hmac-sha256-hex") return { [scheme.signatureHeader]: `${scheme.prefix}${hex(bodyMac(body, secret))}` };
  const key = standardKey(secret);
  const id = options.id ?? `msg_${globalThis.crypto.randomUUID().replaceAll("-", "")}`;
  const timestamp = Math.floor(options.timestamp ?? Date.now() / 1000);
  return { [scheme.idHeader]: id, [scheme.timestampHeader]: String(timestamp), [scheme.signatureHeader]: standardSignature(key, id, timestamp, body) };
}

/** Why a call's signature was not accepted. */
export type SignatureFailure =
  /** A signature header the scheme needs is absent or empty. */
  | "missing_signature"
  /** The signature does not match the body and the secret (or is malformed). */
  | "invalid_signature"
  /** Standard Webhooks: the signed timestamp is further from the receiver's clock than the tolerance. */
  | "timestamp_out_of_tolerance";

/** A signature's verdict; a failure names the header it is about and says what is wrong. */
export type SignatureCheck = { ok: true } | { ok: false; reason: SignatureFailure; header: string; message: string };

export interface SignatureCheckOptions {
  /** The receiver's clock, in epoch milliseconds (default `Date.now`). */
  now?: () => number;
  /** Standard Webhooks: overrides the scheme's `toleranceSeconds`; a finite number >= 0. */
  toleranceSeconds?: number;
}

const refused = (reason: SignatureFailure, header: string, message: string): SignatureCheck => ({ ok: false, reason, header, message });

/**
 * Checks the signature of a received call: its body exactly as received (before any parsing), its
 * headers, and the secret the receiver holds. Comparisons take constant time. A Standard Webhooks
 * call may carry the unbranded `webhook-` header names instead of the scheme's. A missing or
 * malformed secret is a TypeError, and a tolerance that is not a finite number >= 0 a RangeError
 * (NaN, say from an unset setting, would let every timestamp through).
 */
export function checkWebhookSignature(
  scheme: WebhookSignatureScheme,
  delivery: { headers: WebhookHeadersInput; body: WebhookBody },
  secret: string,
  options: SignatureCheckOptions = {},
): SignatureCheck {
  const { headers, body } = delivery;
  const name = scheme.signatureHeader;
  if (scheme.scheme === "hmac-sha256-hex") {
    requireSecret(secret);
    const received = headerValue(headers, name)?.trim();
    if (!received) return refused("missing_signature", name, `${name} is missing`);
    const signature = received.startsWith(scheme.prefix) ? hexBytes(received.slice(scheme.prefix.length)) : undefined;
    if (signature?.length !== 32) return refused("invalid_signature", name, `${name} is not ${scheme.prefix} followed by 64 hexadecimal digits`);
    return timingSafeEqual(signature, bodyMac(body, secret)) ? { ok: true } : refused("invalid_signature", name, `${name} does not match the body and the secret`);
  }
  const key = standardKey(secret);
  const tolerance = options.toleranceSeconds ?? scheme.toleranceSeconds;
  if (!Number.isFinite(tolerance) || tolerance < 0) throw new RangeError(`toleranceSeconds must be a finite number >= 0, got ${tolerance}`);
  const read = (branded: string, unbranded: string) => (headerValue(headers, branded) ?? headerValue(headers, unbranded))?.trim();
  const id = read(scheme.idHeader, UNBRANDED.id);
  const timestampText = read(scheme.timestampHeader, UNBRANDED.timestamp);
  const signatures = read(name, UNBRANDED.signature);
  for (const [header, value] of [[scheme.idHeader, id], [scheme.timestampHeader, timestampText], [name, signatures]] as const) {
    if (!value) return refused("missing_signature", header, `${header} is missing`);
  }
  if (!/^\d{1,15}$/.test(timestampText!)) return refused("invalid_signature", scheme.timestampHeader, `${scheme.timestampHeader} is not a number of seconds`);
  const timestamp = Number(timestampText);
  const now = Math.floor((options.now ?? Date.now)() / 1000);
  // A stale call is refused before its signature is computed.
  if (Math.abs(now - timestamp) > tolerance) {
    return refused("timestamp_out_of_tolerance", scheme.timestampHeader, `${scheme.timestampHeader} is ${now - timestamp} s from now, more than ${tolerance} s`);
  }
  const expected = standardSignature(key, id!, timestamp, body);
  // Several space-separated signatures are sent while a secret is rotated: any v1 one may match.
  const matches = signatures!
    .split(" ")
    .filter((candidate) => candidate.startsWith("v1,"))
    .map((candidate) => sameText(candidate, expected));
  return matches.includes(true) ? { ok: true } : refused("invalid_signature", name, `no v1 signature in ${name} matches the id, timestamp, body and secret`);
}

