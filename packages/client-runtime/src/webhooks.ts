// What the clients' `verifyWebhook` share: the error it throws, reading a received call's headers and
// raw body, the HMAC-SHA256 check (WebCrypto, so it runs in Node, browsers, Bun, Deno and edge
// runtimes alike), a constant-time comparison, and the check of a payload against the shape
// generated from the description.

/** Why a received webhook call was not accepted. */
export type WebhookVerificationReason =
  /** A signature header the scheme needs is absent or empty. */
  | "missing_signature"
  /** The signature does not match the body and the secret (or is malformed). */
  | "invalid_signature"
  /** Standard Webhooks: the signed timestamp is further from the receiver's clock than the tolerance. */
  | "timestamp_out_of_tolerance"
  /** The body is not JSON, or not the payload of a documented event. */
  | "invalid_body";

/** Thrown by `verifyWebhook` when a call must not be trusted or used; `reason` says why. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  readonly reason: WebhookVerificationReason;
  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** The raw body of a received call, before any parsing: the signature is computed over these bytes. */
export type WebhookBody = string | Uint8Array | ArrayBuffer;

/** A received call's headers: a Fetch `Headers`, or a record by name in any case (Node's `req.headers`). */
export type WebhookHeadersInput = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** The value of header `name` (any case), a repeated header's values joined with `, `; undefined when absent. */
export function headerValue(headers: WebhookHeadersInput, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function" && typeof (headers as Headers).has === "function") {
    return (headers as Headers).get(name) ?? undefined;
  }
  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    values.push(typeof value === "string" ? value : value.join(", "));
  }
  return values.length > 0 ? values.join(", ") : undefined;
}

const encoder = new TextEncoder();

/** The body as bytes, exactly as received (a copy of a view, so that WebCrypto gets a plain ArrayBuffer). */
export function bodyBytes(body: WebhookBody): Uint8Array<ArrayBuffer> {
  if (typeof body === "string") return encoder.encode(body);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) {
    const copy = new Uint8Array(body.byteLength);
    copy.set(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
    return copy;
  }
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

function subtle(): SubtleCrypto {
  const found = globalThis.crypto?.subtle;
  if (!found) throw new Error("verifyWebhook needs WebCrypto (globalThis.crypto.subtle), which Node 20+, browsers, Bun, Deno and edge runtimes provide");
  return found;
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> | undefined {
  if (hex.length === 0 || hex.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(hex)) return undefined;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** An `hmac-sha256-hex` scheme (`x-webhook-signature`): `signatureHeader` holds `prefix` and the hex HMAC-SHA256 of the body. */
export interface HmacSha256HexScheme {
  readonly scheme: "hmac-sha256-hex";
  readonly signatureHeader: string;
  readonly prefix: string;
}

/**
 * Checks an `hmac-sha256-hex` signature over the raw body with WebCrypto's HMAC verify, which
 * compares in constant time; the secret is used as its UTF-8 bytes. Throws a
 * {@link WebhookVerificationError} (`missing_signature` or `invalid_signature`).
 */
export async function verifyHmacSha256Hex(scheme: HmacSha256HexScheme, body: WebhookBody, headers: WebhookHeadersInput, secret: string): Promise<void> {
  if (typeof secret !== "string" || secret === "") throw new TypeError("verifyWebhook needs the webhook secret (a non-empty string)");
  const received = headerValue(headers, scheme.signatureHeader)?.trim();
  if (!received) throw new WebhookVerificationError("missing_signature", `${scheme.signatureHeader} is missing`);
  const signature = received.startsWith(scheme.prefix) ? hexBytes(received.slice(scheme.prefix.length)) : undefined;
  if (!signature || signature.length !== 32) {
    throw new WebhookVerificationError("invalid_signature", `${scheme.signatureHeader} is not ${scheme.prefix} followed by 64 hexadecimal digits`);
  }
  const key = await subtle().importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  if (!(await subtle().verify("HMAC", key, signature, bodyBytes(body)))) {
    throw new WebhookVerificationError("invalid_signature", `${scheme.signatureHeader} does not match the body and the secret`);
  }
}

type JsonType = "object" | "array" | "string" | "number" | "integer" | "boolean" | "null";

/**
 * What a payload always carries, generated from the description at build time: the JSON type(s)
 * of a value, its `const` when it has one, the members it always has (with their own shapes) and
 * the shape of its items.
 */
export interface WebhookShape {
  readonly type?: JsonType | readonly JsonType[];
  readonly const?: string | number | boolean | null;
  readonly members?: Readonly<Record<string, WebhookShape>>;
  readonly items?: WebhookShape;
}

function jsonType(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value as JsonType;
}

/** The first place where `value` is not of `shape`, as a sentence; undefined when it is. */
export function shapeMismatch(value: unknown, shape: WebhookShape, where = "the body"): string | undefined {
  const types = shape.type === undefined ? undefined : ([] as JsonType[]).concat(shape.type);
  const actual = jsonType(value);
  if (types && !types.includes(actual) && !(actual === "integer" && types.includes("number"))) return `${where} must be ${types.join(" or ")}`;
  if (shape.const !== undefined && value !== shape.const) return `${where} must be ${JSON.stringify(shape.const)}`;
  if (shape.members && actual === "object") {
    const object = value as Record<string, unknown>;
    for (const [name, member] of Object.entries(shape.members)) {
      const at = `${where === "the body" ? "" : `${where}.`}${name}`;
      if (!Object.hasOwn(object, name)) return `${at} is missing`;
      const found = shapeMismatch(object[name], member, at);
      if (found) return found;
    }
  }
  if (shape.items && actual === "array") {
    const items = value as unknown[];
    for (let i = 0; i < items.length; i++) {
      const found = shapeMismatch(items[i], shape.items, `${where === "the body" ? "" : where}[${i}]`);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Parses a verified body and checks it against the shape of the event its `type` names. Throws a
 * {@link WebhookVerificationError} `invalid_body` when it is not JSON, names no documented event,
 * or lacks a member the event always has.
 */
export function parseWebhookEvent<Event>(text: string, shapes: Readonly<Record<string, WebhookShape>>): Event {
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError("invalid_body", "the body is not JSON");
  }
  const type = typeof payload === "object" && payload !== null && !Array.isArray(payload) ? (payload as { type?: unknown }).type : undefined;
  const shape = typeof type === "string" && Object.hasOwn(shapes, type) ? shapes[type] : undefined;
  if (!shape) throw new WebhookVerificationError("invalid_body", `the body's type is not one of ${Object.keys(shapes).join(", ")}`);
  const mismatch = shapeMismatch(payload, shape);
  if (mismatch) throw new WebhookVerificationError("invalid_body", `not a ${type} payload: ${mismatch}`);
  return payload as Event;
}

/**
 * The payload of every webhook of a description, as a union discriminated by `type`, from the
 * `webhooks` interface openapi-typescript generates.
 */
export type WebhookEventOf<Webhooks> = {
  [Event in keyof Webhooks]: Webhooks[Event] extends { post: { requestBody: { content: { "application/json": infer Payload } } } } ? Payload : never;
}[keyof Webhooks];
