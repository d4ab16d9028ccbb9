// The `./webhooks` entry: verifying the calls the service makes to your endpoint. Apart from the
// client, so that an application that only calls the API does not bundle it.
import { verifyWebhookCall, type SignatureCheckOptions, type WebhookBody, type WebhookEventOf, type WebhookHeadersInput } from "@api-contracts/client-runtime/webhooks";
import { webhookShapes, webhookSignature, type webhooks } from "./generated/entitlements.js";

/** The body of every call the service makes to your webhook endpoint, discriminated by `type`. */
export type EntitlementsWebhookEvent = WebhookEventOf<webhooks>;

/** One event's payload by its name: `EntitlementsWebhookEventOf<"balances.limit_reached">`. */
export type EntitlementsWebhookEventOf<Type extends EntitlementsWebhookEvent["type"]> = Extract<EntitlementsWebhookEvent, { type: Type }>;

export { WebhookVerificationError, type WebhookVerificationReason, type WebhookBody, type WebhookHeadersInput } from "@api-contracts/client-runtime/webhooks";

/** `toleranceSeconds`: how far the signed timestamp may be from `now` (default 300); `now`: the receiver's clock (default `Date.now`). */
export type VerifyWebhookOptions = SignatureCheckOptions;

/**
 * Verifies a call the entitlements service made to your webhook endpoint and returns its event.
 * Pass the body exactly as received (before any JSON parsing), the request's headers and the
 * endpoint's signing secret (`whsec_...`). The Standard Webhooks signature (`svix-id`,
 * `svix-timestamp`, `svix-signature`, or their unbranded `webhook-` names) is checked and compared
 * in constant time; the timestamp must be within `toleranceSeconds` of `now`; then the body must be
 * the payload of a documented event.
 *
 * Throws {@link WebhookVerificationError} with `reason` `missing_signature`, `invalid_signature`,
 * `timestamp_out_of_tolerance` or `invalid_body`; a missing or malformed secret is a `TypeError`,
 * a tolerance that is not a finite number >= 0 a `RangeError`.
 *
 * @example
 * const event = await verifyWebhook(await request.text(), request.headers, process.env.AUTUMN_WEBHOOK_SECRET!);
 * if (event.type === "balances.limit_reached") console.log(event.data.customer_id, event.data.limit_type);
 */
export async function verifyWebhook(body: WebhookBody, headers: WebhookHeadersInput, secret: string, options: VerifyWebhookOptions = {}): Promise<EntitlementsWebhookEvent> {
  return verifyWebhookCall<EntitlementsWebhookEvent>(webhookSignature, webhookShapes, body, headers, secret, options);
}
