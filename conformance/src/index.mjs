export { runFirecrawl, PNPM, LIMITS } from "./firecrawl.mjs";
export { runSdkThroughProxy, summariseProxyReport, PROXY_KNOWN_DIFFERENCES } from "./firecrawl-sdk.mjs";
export { firecrawlRequests, judgedCrawlBodies } from "./firecrawl-requests.mjs";
export { exchange, writeRecords, MAX_ANSWER_BYTES } from "./exchanges.mjs";
export { freePort, probePort, run, startDaemon, stopAll, stopGroup, waitUntil, whenStopped } from "./processes.mjs";
export { runAutumn, prepareCheckout, autumnFixtures, REGISTRY_GAPS, BUN, AUTUMN_LIMITS } from "./autumn.mjs";
export { autumnRequests, judgedEntitlementsBodies, AUTUMN_SEED, JUDGED_OPERATIONS } from "./autumn-requests.mjs";
export { startSqsStandIn } from "./sqs-stand-in.mjs";
export { commitOf, httpAnswers, redisAnswers, redisReplies, seconds } from "./servers.mjs";
