import { randomUUID } from "node:crypto";
import { subscribesTo, parseUrl, withDefaultScheme, type ApiContract, type JsonObject } from "@api-contracts/contract-core";
import { jobEventCall, type WebhookCall, type WebhookDeliverer, type WebhookSequence } from "@api-contracts/contract-core/server";
import type { WorldCrawl } from "../fixtures.js";

/** Pages a crawl pretends its site has: the start URL and two below it; fewer when `limit` asks for fewer. */
export const PAGES_PER_CRAWL = 3;

const START_CRAWL = { method: "POST", path: "/v2/crawl" };

/** The format names a crawl's `scrapeOptions.formats` asks for (`markdown` when none are given). */
function formatsOf(body: JsonObject): Set<string> {
  const formats = (body.scrapeOptions as { formats?: unknown } | undefined)?.formats;
  if (!Array.isArray(formats)) return new Set(["markdown"]);
  return new Set(formats.map((format: unknown) => (typeof format === "string" ? format : (format as { type?: unknown } | null)?.type)).filter((name): name is string => typeof name === "string"));
}

/** How many pages a crawl pretends to scrape: {@link PAGES_PER_CRAWL}, or `limit` when lower. */
function pageCount(body: JsonObject): number {
  return typeof body.limit === "number" ? Math.max(0, Math.min(PAGES_PER_CRAWL, Math.floor(body.limit))) : PAGES_PER_CRAWL;
}

/** The documents of the pages a crawl pretends to scrape. */
function pretendPages(body: JsonObject): JsonObject[] {
  // The start URL as the service reads it, and as the contract's url rule on `CrawlRequest.url` judged it: `http://` in front of one without a scheme, then trimmed.
  const start = parseUrl(withDefaultScheme(String(body.url ?? ""), "http").trim());
  if (!start) return [];
  const count = pageCount(body);
  const below = new URL(start.href);
  below.search = "";
  below.hash = "";
  if (!below.pathname.endsWith("/")) below.pathname += "/";
  const urls = [start.href, ...Array.from({ length: PAGES_PER_CRAWL - 1 }, (_, i) => new URL(`page-${i + 1}`, below).href)].slice(0, count);
  const formats = formatsOf(body);
  return urls.map((url, index) => {
    const title = index === 0 ? `Start page of ${start.host}` : `Page ${index} of ${start.host}`;
    const document: JsonObject = {};
    // Other formats the crawl asks for are left out, as the page schema allows.
    for (const format of formats) {
      if (format === "markdown") document.markdown = `# ${title}\n\nA page the reference server pretends to have scraped from ${url}.`;
      if (format === "html") document.html = `<h1>${title}</h1>`;
      if (format === "rawHtml") document.rawHtml = `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`;
      if (format === "links") document.links = urls.filter((other) => other !== url);
    }
    document.metadata = { sourceURL: url, url, statusCode: 200, scrapeId: randomUUID(), title, contentType: "text/html; charset=utf-8", creditsUsed: 1 };
    return document;
  });
}

/**
 * The webhook calls of crawls started with a `webhook`: `crawl.started`, one `crawl.page` per page
 * the crawl pretends to scrape, then `crawl.completed`, each only when the webhook's `events` take
 * it, one after another (each after the previous one ended). A crawl's pages are done as their
 * calls end: once the last has ended it is `completed` (a crawl with no call to make keeps
 * scraping until cancelled, as one without a webhook). Cancelling takes its waiting `crawl.page` calls off; its
 * `crawl.completed` is still sent, as the service sends it for a cancelled crawl.
 */
export class CrawlDeliveries {
  private readonly running = new Map<string, WebhookSequence>();

  constructor(
    private readonly contract: ApiContract,
    private readonly deliverer: WebhookDeliverer,
  ) {}

  /** Starts the calls of a crawl just started with the request `body`; nothing when it has no webhook. */
  start(crawl: WorldCrawl, body: JsonObject): void {
    const subscription = this.contract.webhookSubscription(START_CRAWL, body);
    if (!subscription) return;
    const types = ["crawl.started", ...Array.from({ length: pageCount(body) }, () => "crawl.page"), "crawl.completed"].filter((type) => subscribesTo(subscription, type));
    // Calls that cannot fit are not built: a receiver that never answers keeps the cap full, and
    // every crawl started meanwhile only reports its calls dropped.
    const calls: WebhookCall[] =
      this.deliverer.room < types.length
        ? types.map((type) => ({ url: subscription.url, payload: { type } }))
        : [
            { type: "crawl.started", id: crawl.id, success: true, data: [] },
            ...pretendPages(body).map((page) => ({ type: "crawl.page", id: crawl.id, success: true, data: [page] })),
            { type: "crawl.completed", id: crawl.id, success: true, data: [] },
          ]
            .filter((event) => subscribesTo(subscription, event.type))
            .map((event) => jobEventCall(subscription, event));
    const sequence = this.deliverer.sequence();
    const finish = (): void => {
      this.running.delete(crawl.id);
      if (crawl.status === "scraping") crawl.status = "completed";
    };
    // With nothing to send (no event taken, or the calls dropped at the cap, which reports them)
    // the crawl is as one without a webhook: it keeps scraping until cancelled.
    if (calls.length === 0 || !sequence.push(...calls)) return;
    this.running.set(crawl.id, sequence);
    void sequence.idle().then(finish);
  }

  /** Stops a cancelled crawl's pages; its `crawl.completed` still goes. */
  cancel(id: string): void {
    this.running.get(id.toLowerCase())?.cancel((call) => (call.payload as { type?: unknown }).type === "crawl.completed");
  }
}
