export { summariseProxyReport, PROXY_KNOWN_DIFFERENCES } from "./firecrawl-sdk.mjs";
export { firecrawlRequests } from "./firecrawl-requests.mjs";
export { prepareCheckout, autumnFixtures, REGISTRY_GAPS } from "./autumn.mjs";
export { autumnRequests, judgedEntitlementsBodies, AUTUMN_SEED } from "./autumn-requests.mjs";
export { startSqsStandIn } from "./sqs-stand-in.mjs";
export { webhookCrawls } from "./firecrawl-webhooks.mjs";
export { startStaticSite, SITE_PAGES } from "./static-site.mjs";
export { startTunnelProxy } from "./tunnel-proxy.mjs";
export { startWebhookReceiver, MAX_DELIVERY_BYTES } from "./webhook-receiver.mjs";
