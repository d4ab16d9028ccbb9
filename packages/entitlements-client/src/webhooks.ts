import { Webhook } from "standardwebhooks";
import { WebhookVerificationError, bodyText, headerValue, parseWebhookEvent, timingSafeEqual, type WebhookBody, type WebhookEventOf, type WebhookHeadersInput } from "@api-contracts/client-runtime";
import { webhookShapes, webhookSignature, type webhooks } from "./generated/entitlements.js";

/** The body of every call the service makes to your webhook endpoint, discriminated by `type`. */
export type EntitlementsWebhookEvent = WebhookEventOf<webhooks>;

/** One event's payload by its name: `EntitlementsWebhookEventOf<"balances.limit_reached">`. */
export type EntitlementsWebhookEventOf<Type extends EntitlementsWebhookEvent["type"]> = Extract<EntitlementsWebhookEvent, { type: Type }>;

export { WebhookVerificationError, type WebhookVerificationReason, type WebhookBody, type WebhookHeadersInput } from "@api-contracts/client-runtime";

export interface VerifyWebhookOptions {
  /** How far the signed timestamp may be from `now`, in seconds. Default 300, the Standard Webhooks default. */
  toleranceSeconds?: number;
  /** The receiver's clock, in epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** The Standard Webhooks names of the three headers, which the service's sender may use instead of its `svix-` ones. */
const UNBRANDED = { id: "webhook-id", timestamp: "webhook-timestamp", signature: "webhook-signature" } as const;

const encoder = new TextEncoder();

/**
 * Verifies a call the entitlements service made to your webhook endpoint and returns its event.
 * Pass the body exactly as received (before any JSON parsing), the request's headers and the
 * endpoint's signing secret (`whsec_...`). The Standard Webhooks signature (`svix-id`,
 * `svix-timestamp`, `svix-signature`, or their unbranded `webhook-` names) is checked with the
 * `standardwebhooks` library's signing and compared in constant time; the timestamp must be within
 * `toleranceSeconds` of `now`; then the body must be the payload of a documented event.
 *
 * Throws {@link WebhookVerificationError} with `reason` `missing_signature`, `invalid_signature`,
 * `timestamp_out_of_tolerance` or `invalid_body`; a missing or malformed secret is a `TypeError`.
 *
 * @example
 * const event = await verifyWebhook(await request.text(), request.headers, process.env.AUTUMN_WEBHOOK_SECRET!);
 * if (event.type === "balances.limit_reached") console.log(event.data.customer_id, event.data.limit_type);
 */
export async function verifyWebhook(body: WebhookBody, headers: WebhookHeadersInput, secret: string, options: VerifyWebhookOptions = {}): Promise<EntitlementsWebhookEvent> {
  if (typeof secret !== "string" || secret === "") throw new TypeError("verifyWebhook needs the endpoint's signing secret (whsec_...)");
  // NaN would compare false and let every timestamp through: refuse it rather than verify nothing.
  const tolerance = options.toleranceSeconds ?? webhookSignature.toleranceSeconds;
  if (!Number.isFinite(tolerance) || tolerance < 0) throw new RangeError(`toleranceSeconds must be a finite number >= 0, got ${tolerance}`);
  let signer: Webhook;
  try {
    signer = new Webhook(secret);
  } catch {
    throw new TypeError("the signing secret must be whsec_ followed by a base64 key, as the service shows it");
  }
  const scheme = webhookSignature;
  const read = (name: string, unbranded: string) => (headerValue(headers, name) ?? headerValue(headers, unbranded))?.trim();
  const id = read(scheme.idHeader, UNBRANDED.id);
  const timestamp = read(scheme.timestampHeader, UNBRANDED.timestamp);
  const signatures = read(scheme.signatureHeader, UNBRANDED.signature);
  for (const [name, value] of [[scheme.idHeader, id], [scheme.timestampHeader, timestamp], [scheme.signatureHeader, signatures]] as const) {
    if (!value) throw new WebhookVerificationError("missing_signature", `${name} is missing`);
  }
  if (!/^\d{1,15}$/.test(timestamp!)) throw new WebhookVerificationError("invalid_signature", `${scheme.timestampHeader} is not a number of seconds`);
  const signedAt = Number(timestamp);
  const now = Math.floor((options.now ?? Date.now)() / 1000);
  if (Math.abs(now - signedAt) > tolerance) {
    throw new WebhookVerificationError("timestamp_out_of_tolerance", `${scheme.timestampHeader} is ${now - signedAt} s from now, more than ${tolerance} s`);
  }
  const text = bodyText(body);
  const expected = encoder.encode(signer.sign(id!, new Date(signedAt * 1000), text));
  // Several space-separated signatures are sent while a secret is rotated: any v1 one may match.
  const matches = signatures!
    .split(" ")
    .filter((candidate) => candidate.startsWith("v1,"))
    .map((candidate) => timingSafeEqual(encoder.encode(candidate), expected));
  if (!matches.includes(true)) throw new WebhookVerificationError("invalid_signature", `no v1 signature in ${scheme.signatureHeader} matches the id, timestamp, body and secret`);
  return parseWebhookEvent<EntitlementsWebhookEvent>(text, webhookShapes);
}
