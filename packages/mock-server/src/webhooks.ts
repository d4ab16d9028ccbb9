import { isObject, subscribesTo, walkWebhooks, type JsonObject, type OperationInfo, type WalkedWebhook } from "@api-contracts/contract-core";
import { WebhookDeliverer, jobEventCall, type WebhookDelivererOptions } from "@api-contracts/contract-core/server";
import { operationKey, type ApiDescription } from "./spec.js";

/** One documented example of a webhook, as the mock sends it. */
interface ExampleEvent {
  event: string;
  payload: JsonObject;
}

/** Every named example of a webhook's payload, in document order. */
function examplesOf(webhook: WalkedWebhook): ExampleEvent[] {
  return (webhook.requestBody?.media ?? []).flatMap((media) => media.examples.filter((example) => isObject(example.value)).map((example) => ({ event: webhook.event, payload: example.value as JsonObject })));
}

/**
 * The documented example calls of the operations whose requests start a job with a webhook (the
 * facts' `jobs.webhookMember`): after such a request is answered with a 2xx, every example of every
 * webhook of the job (`startCrawl` and the `crawl.*` webhooks) whose event the request's `events`
 * take, in document order, one after another. Each example keeps its `success`, `data` and
 * `error`; `id` becomes the answer's `id` (the job the client was told of), `metadata` the
 * webhook's, and `webhookId` a new one per call, so that a receiver built on these calls works
 * with the live service's.
 */
export class ExampleDeliveries {
  private readonly byOperation = new Map<string, ExampleEvent[]>();
  private readonly deliverer: WebhookDeliverer | undefined;

  constructor(
    private readonly api: ApiDescription,
    // Signed as the description's `x-webhook-signature` says when a secret is given.
    options: Omit<WebhookDelivererOptions, "signature">,
  ) {
    const { contract } = api;
    const webhooks = walkWebhooks(contract.validators.document);
    for (const operation of contract.validators.listOperations()) {
      const events = contract.jobEvents(operation.operationId)?.events ?? [];
      const examples = webhooks.filter((webhook) => events.includes(webhook.event)).flatMap(examplesOf);
      if (examples.length > 0) this.byOperation.set(operationKey(operation), examples);
    }
    // An API none of whose requests carry a webhook makes no calls, and its secret is not read.
    this.deliverer = this.byOperation.size === 0 ? undefined : new WebhookDeliverer({ ...options, signature: contract.validators.webhookSignature });
  }

  /** Queues the example calls a request answered `answer` asks for; nothing when it carries no webhook. */
  deliver(operation: OperationInfo, requestBody: unknown, answer: unknown): void {
    const examples = this.byOperation.get(operationKey(operation));
    if (!examples || !this.deliverer) return;
    const subscription = this.api.contract.webhookSubscription(operation, requestBody);
    if (!subscription) return;
    const answeredId = isObject(answer) && typeof answer.id === "string" ? answer.id : undefined;
    const calls = examples
      .filter((example) => subscribesTo(subscription, example.event))
      .map(({ event, payload }) =>
        jobEventCall(subscription, {
          type: event,
          id: answeredId ?? String(payload.id),
          success: payload.success === true,
          data: Array.isArray(payload.data) ? payload.data : [],
          ...(typeof payload.error === "string" ? { error: payload.error } : {}),
        }),
      );
    if (calls.length > 0) this.deliverer.sequence().push(...calls);
  }

  close(): Promise<void> {
    return this.deliverer?.close() ?? Promise.resolve();
  }
}
