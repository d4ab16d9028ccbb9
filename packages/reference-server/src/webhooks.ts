import type { OpenApiValidators } from "@api-contracts/contract-core";
import { DEFAULT_DELIVERY_LIMITS, WebhookDeliverer, type DeliveryReport } from "@api-contracts/contract-core/server";

/** How far the server goes for a receiver; see the limits table in the README. */
export interface WebhookLimits {
  /** A webhook call not answered within this many milliseconds is aborted (the live service's 10 s). */
  webhookTimeoutMs: number;
  /** Webhook calls waiting or in flight at once; calls beyond it are dropped, a crawl's all or none. */
  maxPendingWebhooks: number;
}

export const DEFAULT_WEBHOOK_LIMITS: WebhookLimits = { webhookTimeoutMs: DEFAULT_DELIVERY_LIMITS.timeoutMs, maxPendingWebhooks: DEFAULT_DELIVERY_LIMITS.maxPending };

/** What the server's webhook calls need: the secret they are signed with, limits, and who hears of each call's end. */
export interface WebhookSettings {
  secret?: string;
  limits: WebhookLimits;
  onReport?: (report: DeliveryReport) => void;
}

/** The sender of one server's webhook calls, signed by its description's `x-webhook-signature`. */
export function webhookSender(validators: OpenApiValidators, settings: WebhookSettings): WebhookDeliverer {
  return new WebhookDeliverer({
    signature: validators.webhookSignature,
    secret: settings.secret,
    limits: { timeoutMs: settings.limits.webhookTimeoutMs, maxPending: settings.limits.maxPendingWebhooks },
    onReport: settings.onReport,
  });
}
