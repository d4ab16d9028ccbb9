// Real crawls with a webhook: Firecrawl's workers run beside the API, crawl a small static site on
// 127.0.0.1 and deliver the crawl's events to a receiver on 127.0.0.1; the run keeps the crawl's
// start and every delivery as it arrived.
//
// What it takes at yzkee/firecrawl@ca0be9b7d91e (a mirror of firecrawl/firecrawl; apps/api):
// - two workers (FIRECRAWL_WORKERS): the nuq worker takes the crawl's scrape jobs from PostgreSQL
//   (the kickoff, then one per page) and sends `crawl.started` and `crawl.page`; the queue worker
//   takes the crawl-finished jobs that nuq.sql's `nuq_group_crawl_finished` makes once a crawl has
//   no job left, and sends `crawl.completed`. Each has a health endpoint that listens without a
//   host, so each is preloaded with loopback-only.cjs;
// - without a Fire Engine or Playwright service the scrape engine is `fetch`
//   (scraper/scrapeURL/engines/index.ts), whose dispatcher (engines/utils/safeFetch.ts
//   createBaseAgent, attachSecurityCheck) refuses a private or loopback address unless
//   ALLOW_LOCAL_WEBHOOKS is set, and with PROXY_SERVER set is an undici ProxyAgent: the run's
//   tunnel proxy reaches the site and the receiver and nothing else. The webhook calls go through
//   the same dispatcher (services/webhook/delivery.ts WebhookSender.deliver,
//   getSecureDispatcherNoCookies), signed with SELF_HOSTED_WEBHOOK_HMAC_SECRET;
// - the crawl URL must pass the v2 `url` rule (controllers/v2/types.ts `URL`, lib/url-utils.ts
//   hasReachableHost: an IP address passes, and the whole string must hold a dot and two letters
//   or digits before the port or path): `http://127.0.0.1:<port>/index.html` does; from a page
//   the crawler keeps only paths under its folder (lib/crawl-scope.ts getCrawlScope), hence
//   `crawlEntireDomain`.
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

/** The worker processes a crawl needs (apps/api/package.json `nuq-worker:production`, `worker:production`): script, the variable of its health port, its health path. */
const FIRECRAWL_WORKERS = [
  { name: "nuq worker", script: "dist/src/services/worker/nuq-worker.js", portVariable: "NUQ_WORKER_PORT", healthPath: "/health", log: "nuq-worker.log" },
  { name: "queue worker", script: "dist/src/services/queue-worker.js", portVariable: "WORKER_PORT", healthPath: "/liveness", log: "worker.log" },
];

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
 * Starts the site, the receiver, the proxy and the workers, runs each crawl of webhookCrawls to its
 * `crawl.completed` (or its time limit), then stops all of them (the API keeps running, without a
 * worker, for the rest of the run). Resolves with each crawl's start exchange and deliveries.
 */
export async function runWebhookCrawls({ baseUrl, apiKey, apiDir, env, server, logDir, log }) {
  const started = Date.now();
  const site = await startStaticSite();
  whenStopped("webhook-site", site.close);
  const receiver = await startWebhookReceiver();
  whenStopped("webhook-receiver", receiver.close);
  const proxy = await startTunnelProxy([site.origin, receiver.origin].map((origin) => new URL(origin).host));
  whenStopped("webhook-proxy", proxy.close);
  const redact = redactor([apiKey]);
  const workers = [];
  try {
    // The secret signs every delivery (self-hosted: SELF_HOSTED_WEBHOOK_HMAC_SECRET), and
    // ALLOW_LOCAL_WEBHOOKS lets the worker post to, and scrape, a private address.
    const workerEnv = { ...env, PROXY_SERVER: proxy.url, SELF_HOSTED_WEBHOOK_HMAC_SECRET: WEBHOOK_SECRET, ALLOW_LOCAL_WEBHOOKS: "true" };
    for (const { name, script, portVariable, healthPath, log: logName } of FIRECRAWL_WORKERS) {
      const port = await freePort();
      const worker = startDaemon("node", ["--require", LOOPBACK_ONLY, script], { cwd: apiDir, env: { ...workerEnv, [portVariable]: String(port) }, logFile: path.join(logDir, logName) });
      workers.push(worker);
      await waitUntil(() => httpAnswers(`http://127.0.0.1:${port}${healthPath}`), { timeoutMs: WEBHOOK_LIMITS.workerReadyMs, what: `Firecrawl's ${name}`, stillRunning: () => worker.exitCode === null });
    }
    log(`${FIRECRAWL_WORKERS.map((worker) => worker.name).join(" and ")} ready (${seconds(started)}); site ${site.origin}, receiver ${receiver.origin}, tunnel proxy ${proxy.url}`);

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
    log(`site asked for ${site.requests.map((r) => r.path).join(", ") || "nothing"}; ${proxy.tunnels.length} tunnels to it and the receiver, ${proxy.refused.length} refused${proxy.refused.length ? ` (${proxy.refused.join(", ")})` : ""}`);
    return crawls;
  } finally {
    // Stopped here, not at the end: the crawls of the later steps are only enqueued.
    for (const worker of workers.reverse()) await stopGroup(worker);
    await Promise.all([site.close(), proxy.close(), receiver.close()]);
  }
}
