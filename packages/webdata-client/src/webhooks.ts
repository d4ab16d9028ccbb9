// The `./webhooks` entry: verifying the calls the service makes to your webhooks. Apart from the
// client, so that an application that only calls the API does not bundle it.
import { verifyWebhookCall, type WebhookBody, type WebhookEventOf, type WebhookHeadersInput } from "@api-contracts/client-runtime/webhooks";
import { webhookShapes, webhookSignature, type webhooks } from "./generated/webdata.js";

/** The body of every call the service makes to a crawl's or a monitor's webhook, discriminated by `type`. */
export type WebdataWebhookEvent = WebhookEventOf<webhooks>;

/** One event's payload by its name: `WebdataWebhookEventOf<"crawl.page">`. */
export type WebdataWebhookEventOf<Type extends WebdataWebhookEvent["type"]> = Extract<WebdataWebhookEvent, { type: Type }>;

export { WebhookVerificationError, type WebhookVerificationReason, type WebhookBody, type WebhookHeadersInput } from "@api-contracts/client-runtime/webhooks";

/**
 * Verifies a call the web data service made to your webhook and returns its event. Pass the body
 * exactly as received (before any JSON parsing), the request's headers and your team's webhook
 * secret. The `X-Firecrawl-Signature` HMAC-SHA256 is checked in constant time; then the body must
 * be the payload of a documented event.
 *
 * Throws {@link WebhookVerificationError} with `reason` `missing_signature`, `invalid_signature` or
 * `invalid_body`; a missing secret is a `TypeError`.
 *
 * @example
 * const event = await verifyWebhook(await request.text(), request.headers, process.env.FIRECRAWL_WEBHOOK_SECRET!);
 * if (event.type === "crawl.page" && event.success) console.log(event.data[0]?.markdown);
 */
export async function verifyWebhook(body: WebhookBody, headers: WebhookHeadersInput, secret: string): Promise<WebdataWebhookEvent> {
  return verifyWebhookCall<WebdataWebhookEvent>(webhookSignature, webhookShapes, body, headers, secret);
}
