import type { FastifyInstance } from "fastify";
import type { JsonObject } from "@api-contracts/contract-core";
import type { paths } from "@api-contracts/webdata-client";
import type { SeededFixtures } from "../fixtures.js";
import { addressUrl, createApp, Refusals, registerOperation, type HandlerInput, type HttpLimits } from "../http.js";
import { contractOf } from "../spec.js";
import type { StateLimits } from "../state.js";
import type { AnswerOf, PathOf, QueryOf, RequestBody } from "../typing.js";
import { webhookSender, type WebhookSettings } from "../webhooks.js";
import { CrawlDeliveries } from "./crawls.js";
import { WebdataStore } from "./store.js";

type StartCrawlOp = paths["/v2/crawl"]["post"];
type CancelCrawlOp = paths["/v2/crawl/{id}"]["delete"];
type ListSessionsOp = paths["/v2/interact"]["get"];
type ListBrowsersOp = paths["/v2/browser"]["get"];
type GetMonitorOp = paths["/v2/monitor/{monitorId}"]["get"];
type TokenUsageOp = paths["/v2/team/token-usage"]["get"];
type HistoricalOp = paths["/v2/team/credit-usage/historical"]["get"];
interface WebdataAppOptions {
  fixtures: SeededFixtures;
  now: () => number;
  http: HttpLimits;
  state: StateLimits;
  /** Base of the URLs the API hands out (`url` of a started crawl); default: the address the server listens on. */
  publicUrl?: string;
  /** Crawl webhook calls: the team's secret that signs them, their limits. */
  webhooks: WebhookSettings;
}

/** The web data API: crawl start and cancel, sessions (and their `/v2/browser` alias), monitors, team usage. */
export function webdataApp({ fixtures, now, http, state, publicUrl, webhooks }: WebdataAppOptions): FastifyInstance {
  const store = new WebdataStore(fixtures.world.webdata, now, state);
  const contract = contractOf("webdata");
  const refusals = new Refusals(contract, fixtures.api_keys.webdata);
  const app = createApp(refusals, http);
  const deliverer = webhookSender(contract.validators, webhooks);
  const crawls = new CrawlDeliveries(contract.validators.document, deliverer);
  app.addHook("onClose", () => deliverer.close());
  // Never from the request's Host header: a client must not choose the URLs the API hands out.
  const base = (): string => {
    if (publicUrl !== undefined) return publicUrl;
    const address = app.server.address();
    return typeof address === "object" && address !== null ? addressUrl(address.address, address.port) : "http://localhost";
  };

  const startCrawl = (input: HandlerInput<RequestBody<StartCrawlOp>, QueryOf<StartCrawlOp>, PathOf<StartCrawlOp>>): AnswerOf<StartCrawlOp> => {
    const crawl = store.startCrawl(input.body.url, input.headers["x-idempotency-key"]);
    if (!crawl) return { status: 409, body: { success: false, error: "Idempotency key already used" } };
    crawls.start(crawl, input.body as JsonObject);
    return { status: 200, body: { success: true, id: crawl.id, url: `${base()}/v2/crawl/${crawl.id}` } };
  };

  const cancelCrawl = (input: HandlerInput<never, QueryOf<CancelCrawlOp>, PathOf<CancelCrawlOp>>): AnswerOf<CancelCrawlOp> => {
    const outcome = store.cancelCrawl(input.params.id);
    if (outcome === "not_found") return { status: 404, body: { error: "Crawl job not found." } };
    if (outcome === "already_finished") return { status: 409, body: { error: "Crawl is already completed" } };
    crawls.cancel(input.params.id);
    return { status: 200, body: { status: "cancelled" } };
  };

  const listSessions = (input: HandlerInput<never, QueryOf<ListSessionsOp>, PathOf<ListSessionsOp>>): AnswerOf<ListSessionsOp> & AnswerOf<ListBrowsersOp> => ({
    status: 200,
    body: { success: true, sessions: store.listSessions(input.query.status) },
  });

  const getMonitor = (input: HandlerInput<never, QueryOf<GetMonitorOp>, PathOf<GetMonitorOp>>): AnswerOf<GetMonitorOp> => {
    const monitor = store.monitor(input.params.monitorId);
    if (!monitor) return { status: 404, body: { success: false, error: "Monitor not found" } };
    return { status: 200, body: { success: true, data: monitor } };
  };

  const tokenUsage = (): AnswerOf<TokenUsageOp> => ({ status: 200, body: { success: true, data: store.tokenUsage() } });

  const historical = (input: HandlerInput<never, QueryOf<HistoricalOp>, PathOf<HistoricalOp>>): AnswerOf<HistoricalOp> => ({
    status: 200,
    body: { success: true, periods: store.historicalCreditUsage(input.query.byApiKey === true) },
  });

  registerOperation(app, refusals, "POST", "/v2/crawl", startCrawl);
  registerOperation(app, refusals, "DELETE", "/v2/crawl/{id}", cancelCrawl);
  registerOperation(app, refusals, "GET", "/v2/interact", listSessions);
  registerOperation(app, refusals, "GET", "/v2/browser", listSessions);
  registerOperation(app, refusals, "GET", "/v2/monitor/{monitorId}", getMonitor);
  registerOperation(app, refusals, "GET", "/v2/team/token-usage", tokenUsage);
  registerOperation(app, refusals, "GET", "/v2/team/credit-usage/historical", historical);
  return app;
}
