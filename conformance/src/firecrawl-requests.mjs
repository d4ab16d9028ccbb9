// The fixed list of raw requests a Firecrawl run sends, in order: every judged request of the
// spec package (`live-requests/webdata/*.json`, each labelled with the live verdict its source
// gives, with its path, query, headers and body) and our own: crawls, cancels, and every other
// in-scope Web Data operation with and without valid input and credentials. `capture` keeps a
// value of an answer for a later path (`{startedCrawlId}`).
import { judgedRequests } from "./exchanges.mjs";

const MONITOR_ID = "0f6c2b8e-1d3a-4b5c-9e7f-a1b2c3d4e5f6";
const UNKNOWN_CRAWL_ID = "00000000-0000-4000-8000-000000000000";
const CRAWL = { operation: "startCrawl", method: "POST", path: "/v2/crawl", auth: "bearer" };

/**
 * Whether a request would end the self-hosted server rather than be answered: a usable
 * `x-idempotency-key` (one the service takes) is stored by `createIdempotencyKey` in the main
 * database such a server has not, a promise nobody awaits (yzkee/firecrawl@ca0be9b7d91e
 * apps/api/src/routes/shared.ts idempotencyMiddleware), and its rejection ends the process. The
 * run leaves those judged requests out; contract-core's tests still hold the contract to them.
 */
export const endsSelfHostedServer = (request) => Boolean(request.headers?.["x-idempotency-key"]) && request.live === "accepted";

export function firecrawlRequests(judged = judgedRequests("webdata").filter((request) => !endsSelfHostedServer(request))) {
  const sessions = (operation, route) => [
    { operation, method: "GET", path: route, auth: "bearer", note: "list every session" },
    { operation, method: "GET", path: route, query: { status: "active" }, auth: "bearer", note: "list active sessions" },
    { operation, method: "GET", path: route, query: { status: "not-a-status" }, auth: "bearer", note: "a status outside the enum" },
    { operation, method: "GET", path: route, auth: "none", note: "no credential" },
  ];
  return [
    { ...CRAWL, body: { url: "https://example.com" }, capture: { startedCrawlId: "id" }, note: "the smallest crawl; its id is cancelled below" },
    ...judged,
    { ...CRAWL, body: {}, note: "url missing" },
    { ...CRAWL, body: { url: 5 }, note: "url of the wrong type" },
    { ...CRAWL, raw: "{bad", note: "a body that is not JSON" },
    { ...CRAWL, body: { url: "https://example.com", sitemap: "sometimes" }, note: "sitemap outside its enum" },
    { ...CRAWL, body: { url: "https://example.com", unknownMember: 1 }, note: "a member the crawl body does not declare" },
    { ...CRAWL, body: { url: "https://example.com", limit: "10" }, note: "limit as a string" },
    { ...CRAWL, auth: "none", body: { url: "https://example.com" }, note: "no credential" },
    { ...CRAWL, auth: "basic", body: { url: "https://example.com" }, note: "a Basic instead of a Bearer credential" },

    { operation: "cancelCrawl", method: "DELETE", path: "/v2/crawl/{startedCrawlId}", auth: "bearer", note: "cancel the crawl started first" },
    { operation: "cancelCrawl", method: "DELETE", path: "/v2/crawl/{startedCrawlId}", auth: "bearer", note: "cancel the same crawl again" },
    { operation: "cancelCrawl", method: "DELETE", path: `/v2/crawl/${UNKNOWN_CRAWL_ID}`, auth: "bearer", note: "a crawl id the server does not know" },
    { operation: "cancelCrawl", method: "DELETE", path: "/v2/crawl/not-a-uuid", auth: "bearer", note: "an id that is not a UUID" },
    { operation: "cancelCrawl", method: "DELETE", path: `/v2/crawl/${UNKNOWN_CRAWL_ID}`, auth: "none", note: "no credential" },

    ...sessions("listInteractSessions", "/v2/interact"),
    ...sessions("listBrowserSessions", "/v2/browser"),

    { operation: "getMonitor", method: "GET", path: `/v2/monitor/${MONITOR_ID}`, auth: "bearer", note: "a monitor id" },
    { operation: "getMonitor", method: "GET", path: "/v2/monitor/not-a-uuid", auth: "bearer", note: "a monitor id that is not a UUID" },
    { operation: "getMonitor", method: "GET", path: `/v2/monitor/${MONITOR_ID}`, auth: "none", note: "no credential" },

    { operation: "getTokenUsage", method: "GET", path: "/v2/team/token-usage", auth: "bearer", note: "read token usage" },
    { operation: "getTokenUsage", method: "GET", path: "/v2/team/token-usage", auth: "none", note: "no credential" },
    { operation: "getTokenUsage", method: "GET", path: "/v2/team/token-usage", auth: "basic", note: "a Basic instead of a Bearer credential" },

    { operation: "getHistoricalCreditUsage", method: "GET", path: "/v2/team/credit-usage/historical", auth: "bearer", note: "read historical credit usage" },
    { operation: "getHistoricalCreditUsage", method: "GET", path: "/v2/team/credit-usage/historical", query: { byApiKey: true }, auth: "bearer", note: "per key" },
    { operation: "getHistoricalCreditUsage", method: "GET", path: "/v2/team/credit-usage/historical", query: { byApiKey: "not-a-boolean" }, auth: "bearer", note: "byApiKey not a boolean" },
    { operation: "getHistoricalCreditUsage", method: "GET", path: "/v2/team/credit-usage/historical", auth: "none", note: "no credential" },

    { operation: null, method: "GET", path: "/v2/team/credit-usage", auth: "bearer", note: "the release's current-period credit usage, which the contract does not describe" },
    { operation: null, method: "GET", path: "/v2/crawl/{startedCrawlId}", auth: "bearer", note: "the status of the cancelled crawl, which the contract does not describe" },
  ];
}
