// Compiled by types.test.ts: the event verifyWebhook returns is a union discriminated by `type`.
import { verifyWebhook, type EntitlementsWebhookEvent, type EntitlementsWebhookEventOf } from "../../src/webhooks.js";

export async function receive(body: string, headers: Headers): Promise<string> {
  const event: EntitlementsWebhookEvent = await verifyWebhook(body, headers, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", { toleranceSeconds: 60 });
  // @ts-expect-error -- only balances.limit_reached carries limit_type
  void event.data.limit_type;
  if (event.type === "balances.limit_reached") {
    const reached: EntitlementsWebhookEventOf<"balances.limit_reached"> = event;
    const kind: "included" | "max_purchase" | "spend_limit" | "usage_limit" = reached.data.limit_type;
    return `${reached.data.customer_id} ${kind}`;
  }
  // @ts-expect-error -- no webhook of this API sends billing.updated
  if (event.type === "billing.updated") return "";
  return `${event.data.usage_alert.threshold} ${event.data.usage_alert.threshold_type}`;
}
