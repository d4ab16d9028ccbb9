// Real crawls with a webhook: Firecrawl's queue worker runs beside the API, crawls a small static
// site on 127.0.0.1 and delivers the crawl's events to a receiver on 127.0.0.1; the run keeps the
// crawl's start and every delivery as it arrived.
//
// What it takes at firecrawl/firecrawl@61e38dc893a5 (apps/api):
// - the worker is `node dist/src/services/queue-worker.js` (`worker:production`), BullMQ on the
//   API's Redis; its liveness endpoint listens on WORKER_PORT (else PORT) without a host, so it is
//   preloaded with loopback-only.cjs;
// - without a Fire Engine or Playwright service the scrape engine is `fetch`
//   (scraper/scrapeURL/engines/index.ts), whose dispatcher (engines/utils/safeFetch.ts
//   makeSecureDispatcher) destroys a connection to a private or loopback address (isIPv4Private:
//   127/8) with InsecureConnectionError, so a page of 127.0.0.1 is never scraped; with PROXY_SERVER
//   set the dispatcher is an undici ProxyAgent and the proxy decides what is reachable: the run's
//   tunnel proxy reaches the site and nothing else;
// - the crawl URL must pass the v2 `url` rule (controllers/v2/types.ts: a dot and two letters or
//   digits before the port or path, somewhere in the URL): `http://127.0.0.1:<port>/index.html`
//   does, through `.html`; so `crawlEntireDomain` lets the crawl leave the start page's path;
// - deliveries are posted by services/webhook.ts callWebhook with axios, directly (no check of the
//   address): `crawl.started` from the kickoff job, `crawl.page` for each scraped page,
//   `crawl.completed` when the crawl is done.
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { redactor } from "@api-contracts/contract-core";
import { exchange } from "./exchanges.mjs";
import { WEBHOOK_SECRET, deliveryType } from "./judgement.mjs";
import { freePort, startDaemon, stopGroup, waitUntil, whenStopped } from "./processes.mjs";
import { httpAnswers, seconds } from "./servers.mjs";
import { startStaticSite } from "./static-site.mjs";
import { startTunnelProxy } from "./tunnel-proxy.mjs";
import { startWebhookReceiver } from "./webhook-receiver.mjs";

const WEBHOOK_LIMITS = {
  workerReadyMs: 60_000,
  /** From the start of a crawl to its `crawl.completed`. */
  crawlMs: 120_000,
  /** How long deliveries are still taken after `crawl.completed`, to see one that comes late. */
  lateMs: 2_000,
  requestMs: 20_000,
};

const LOOPBACK_ONLY = path.join(path.dirname(new URL(import.meta.url).pathname), "loopback-only.cjs");

/** The crawls a run starts, each with its own receiver path so that its deliveries are told apart. */
export function webhookCrawls({ site, receiver }) {
  const crawl = { url: `${site}/index.html`, limit: 10, crawlEntireDomain: true, sitemap: "skip" };
  return [
    {
      receiverPath: "/all-events",
      note: "a crawl of the four-page site with a webhook: every event (the default), a header of its own and metadata",
      body: { ...crawl, webhook: { url: `${receiver}/all-events`, headers: { "x-conformance-crawl": "all-events" }, metadata: { run: "conformance", crawl: "all-events" } } },
    },
    {
      receiverPath: "/completed-only",
      note: "a crawl of the same site with a webhook that asks for the completed event only",
      body: { ...crawl, webhook: { url: `${receiver}/completed-only`, events: ["completed"] } },
    },
  ];
}

/**
 * Starts the worker, the site, the proxy and the receiver, runs each crawl of webhookCrawls to its
 * `crawl.completed` (or its time limit), then stops all of them (the API keeps running, without a
 * worker, for the rest of the run). Resolves with each crawl's start exchange and deliveries.
 */
export async function runWebhookCrawls({ baseUrl, apiKey, apiDir, env, server, logDir, log }) {
  const started = Date.now();
  const site = await startStaticSite();
  whenStopped("webhook-site", site.close);
  const proxy = await startTunnelProxy(`127.0.0.1:${site.port}`);
  whenStopped("webhook-proxy", proxy.close);
  const receiver = await startWebhookReceiver();
  whenStopped("webhook-receiver", receiver.close);
  const redact = redactor([apiKey]);
  let worker;
  try {
    const workerPort = await freePort();
    worker = startDaemon("node", ["--require", LOOPBACK_ONLY, "dist/src/services/queue-worker.js"], {
      cwd: apiDir,
      // The secret signs deliveries in releases that sign (self-hosted: SELF_HOSTED_WEBHOOK_HMAC_SECRET),
      // and ALLOW_LOCAL_WEBHOOKS lets those releases post to 127.0.0.1; 61e38dc reads neither.
      env: { ...env, WORKER_PORT: String(workerPort), PROXY_SERVER: proxy.url, SELF_HOSTED_WEBHOOK_HMAC_SECRET: WEBHOOK_SECRET, ALLOW_LOCAL_WEBHOOKS: "true" },
      logFile: path.join(logDir, "worker.log"),
    });
    await waitUntil(() => httpAnswers(`http://127.0.0.1:${workerPort}/liveness`), {
      timeoutMs: WEBHOOK_LIMITS.workerReadyMs,
      what: "Firecrawl's queue worker",
      stillRunning: () => worker.exitCode === null,
    });
    log(`queue worker ready (${seconds(started)}); site ${site.origin}, receiver ${receiver.origin}, tunnel proxy ${proxy.url}`);

    const crawls = [];
    for (const crawl of webhookCrawls({ site: site.origin, receiver: receiver.origin })) {
      const crawlStarted = Date.now();
      const start = await exchange(baseUrl, { operation: "startCrawl", method: "POST", path: "/v2/crawl", auth: "bearer", body: crawl.body, note: crawl.note }, { apiKey, server, values: {}, timeoutMs: WEBHOOK_LIMITS.requestMs });
      const ownDeliveries = (deliveries) => deliveries.filter((delivery) => delivery.path === crawl.receiverPath);
      const completed =
        start.status === 200 && (await receiver.waitFor((deliveries) => ownDeliveries(deliveries).some((d) => deliveryType(d) === "crawl.completed"), WEBHOOK_LIMITS.crawlMs));
      if (completed) await sleep(WEBHOOK_LIMITS.lateMs);
      const deliveries = ownDeliveries(receiver.deliveries).map(({ method, path: receivedPath, headers, rawBody }) => ({
        method,
        path: receivedPath,
        headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, redact(String(value))])),
        rawBody: redact(rawBody),
      }));
      const took = seconds(crawlStarted);
      log(`${start.status} crawl ${start.responseBody?.id ?? "(no id)"}: ${deliveries.map(deliveryType).join(", ") || "no delivery"}${completed ? "" : ` -- no crawl.completed within ${WEBHOOK_LIMITS.crawlMs} ms`} (${took})`);
      crawls.push({ start, deliveries });
    }
    log(`site asked for ${site.requests.map((r) => r.path).join(", ") || "nothing"}; ${proxy.tunnels.length} tunnels to it, ${proxy.refused.length} refused${proxy.refused.length ? ` (${proxy.refused.join(", ")})` : ""}`);
    return crawls;
  } finally {
    if (worker) await stopGroup(worker);
    await Promise.all([site.close(), proxy.close(), receiver.close()]);
  }
}
