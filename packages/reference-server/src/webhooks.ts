import { parseHttpUrl, type ApiContract } from "@api-contracts/contract-core";
import { DEFAULT_DELIVERY_LIMITS, WebhookDeliverer, type DeliveryReport } from "@api-contracts/contract-core/server";

/** How far the server goes for a receiver; see the limits table in the README. */
export interface WebhookLimits {
  /** A webhook call not answered within this many milliseconds is aborted (the live service's 10 s). */
  webhookTimeoutMs: number;
  /** Webhook calls waiting or in flight at once; calls beyond it are dropped, a crawl's all or none. */
  maxPendingWebhooks: number;
}

export const DEFAULT_WEBHOOK_LIMITS: WebhookLimits = { webhookTimeoutMs: DEFAULT_DELIVERY_LIMITS.timeoutMs, maxPendingWebhooks: DEFAULT_DELIVERY_LIMITS.maxPending };

/** What the server's webhook calls need: the endpoint and secret, limits, and who hears of each call's end. */
export interface WebhookSettings {
  /** The one endpoint of an API whose requests name no webhook; none: no calls. */
  url?: string;
  secret?: string;
  limits: WebhookLimits;
  onReport?: (report: DeliveryReport) => void;
}

/**
 * How an API's webhook calls are configured, from its facts: an API whose requests start jobs that
 * name their own webhook (`jobs`) takes a secret that signs them, and no endpoint; another API sends
 * its webhooks to one endpoint, given with its secret. Undefined for an API with no webhooks.
 */
export function webhookTarget(contract: ApiContract): "per-request" | "endpoint" | undefined {
  if (contract.api.jobs !== undefined) return "per-request";
  return contract.validators.listWebhooks().length > 0 ? "endpoint" : undefined;
}

/** Checks the webhook options of one API against how its calls are configured and signed; a mistake is a TypeError. */
export function checkWebhookOptions(contract: ApiContract, url: string | undefined, secret: string | undefined): void {
  const target = webhookTarget(contract);
  if (url !== undefined && target !== "endpoint") throw new TypeError(`webhookUrl is not for ${contract.name}: ${target === "per-request" ? "every request that starts a job names its own webhook" : "it sends no webhook calls"}`);
  if (target === "endpoint" && (url === undefined) !== (secret === undefined)) throw new TypeError(`webhookUrl and webhookSecret go together: ${contract.name} webhook calls are sent to the endpoint, signed with its secret`);
  if (url !== undefined && !parseHttpUrl(url)) throw new TypeError(`webhookUrl must be an http or https URL, got ${url}`);
  // A Standard Webhooks endpoint's secret is `whsec_` and a base64 key, as Svix gives them.
  if (url !== undefined && contract.validators.webhookSignature?.scheme === "standard-webhooks" && !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret!)) {
    throw new TypeError("webhookSecret must be a Standard Webhooks secret: whsec_ followed by a base64 key");
  }
}

/** The sender of one server's webhook calls, signed by its description's `x-webhook-signature`. */
export function webhookSender(contract: ApiContract, settings: WebhookSettings): WebhookDeliverer {
  return new WebhookDeliverer({
    signature: contract.validators.webhookSignature,
    secret: settings.secret,
    limits: { timeoutMs: settings.limits.webhookTimeoutMs, maxPending: settings.limits.maxPendingWebhooks },
    onReport: settings.onReport,
  });
}
