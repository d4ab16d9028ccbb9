// Compiled by types.test.ts: the event verifyWebhook returns is a union discriminated by `type`.
import { verifyWebhook, type WebdataWebhookEvent, type WebdataWebhookEventOf } from "../../src/webhooks.js";

export async function receive(body: string, headers: Headers): Promise<string> {
  const event: WebdataWebhookEvent = await verifyWebhook(body, headers, "secret");
  // @ts-expect-error -- the union has no member named markdown before it is narrowed
  void event.data[0]?.markdown;
  switch (event.type) {
    case "crawl.page": {
      const page: WebdataWebhookEventOf<"crawl.page"> = event;
      return page.data[0]?.markdown ?? page.data[0]?.metadata.sourceURL ?? page.error ?? "";
    }
    case "monitor.check.completed":
      return String(event.data[0]?.summary.changed);
    case "crawl.started":
    case "crawl.completed":
    case "monitor.page":
      return event.id;
    // @ts-expect-error -- no webhook sends crawl.failed
    case "crawl.failed":
      return "";
  }
}
