import type { JsonObject } from "@api-contracts/contract-core";
import type { operations } from "@api-contracts/webdata-client";
import type { ApiParts, Implementation } from "../implementation.js";
import { served, type AnswerOf, type ReadOf } from "../typing.js";
import { webhookSender } from "../webhooks.js";
import { CrawlDeliveries } from "./crawls.js";
import { WebdataStore } from "./store.js";

type Answer<Id extends keyof operations> = AnswerOf<operations[Id]>;
type Read<Id extends keyof operations> = ReadOf<operations[Id]>;

/** The web data API: crawl start and cancel, sessions (and their `/v2/browser` alias), monitors, team usage. */
export function webdataApi({ fixtures, now, limits, webhooks, contract, base }: ApiParts): Implementation {
  const store = new WebdataStore(fixtures.world.webdata, now, limits);
  const deliverer = webhookSender(contract, webhooks);
  const crawls = new CrawlDeliveries(contract, deliverer);

  const startCrawl = (read: Read<"startCrawl">): Answer<"startCrawl"> => {
    const crawl = store.startCrawl(read.body.url, read.headers["x-idempotency-key"]);
    if (!crawl) return { status: 409, body: { success: false, error: "Idempotency key already used" } };
    crawls.start(crawl, read.body as JsonObject);
    return { status: 200, body: { success: true, id: crawl.id, url: `${base()}/v2/crawl/${crawl.id}` } };
  };

  const cancelCrawl = (read: Read<"cancelCrawl">): Answer<"cancelCrawl"> => {
    const outcome = store.cancelCrawl(read.path.id);
    if (outcome === "not_found") return { status: 404, body: { error: "Crawl job not found." } };
    if (outcome === "already_finished") return { status: 409, body: { error: "Crawl is already completed" } };
    crawls.cancel(read.path.id);
    return { status: 200, body: { status: "cancelled" } };
  };

  const listSessions = (read: Read<"listInteractSessions">): Answer<"listInteractSessions"> & Answer<"listBrowserSessions"> => ({
    status: 200,
    body: { success: true, sessions: store.listSessions(read.query.status) },
  });

  const getMonitor = (read: Read<"getMonitor">): Answer<"getMonitor"> => {
    const monitor = store.monitor(read.path.monitorId);
    if (!monitor) return { status: 404, body: { success: false, error: "Monitor not found" } };
    return { status: 200, body: { success: true, data: monitor } };
  };

  return {
    handlers: served<operations>({
      startCrawl,
      cancelCrawl,
      listInteractSessions: listSessions,
      listBrowserSessions: listSessions,
      getMonitor,
      getTokenUsage: () => ({ status: 200, body: { success: true, data: store.tokenUsage() } }),
      // As the live controller reads it: only `true` (the text `"true"` of a query) splits by key; any other value is no.
      getHistoricalCreditUsage: (read) => ({ status: 200, body: { success: true, periods: store.historicalCreditUsage(String(read.query.byApiKey) === "true") } }),
    }),
    close: () => deliverer.close(),
  };
}
