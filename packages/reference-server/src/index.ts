export { startReferenceServer, buildReferenceApp, resolveLimits, SERVICES, type ReferenceApp, type ReferenceServer, type ReferenceServerOptions, type ReferenceLimits, type Service } from "./server.js";
export { DEFAULT_HTTP_LIMITS } from "./http.js";
export { DEFAULT_STATE_LIMITS } from "./state.js";
/** At most this many problems are described in one error answer (the contract's own bound). */
export { ERROR_LIMIT as MAX_REPORTED_ERRORS } from "@api-contracts/contract-core";
export {
  defaultFixtures,
  loadFixtures,
  validateFixtures,
  writeFixtures,
  FixturesError,
  type Fixtures,
  type SeededFixtures,
  type World,
  type WorldCustomer,
  type WorldEntity,
  type WorldCrawl,
  type WorldCreditUsage,
} from "./fixtures.js";
export { TOKENS_PER_CREDIT } from "./webdata/store.js";
export { DEFAULT_WEBHOOK_LIMITS, type WebhookLimits } from "./webhooks.js";
export { PAGES_PER_CRAWL } from "./webdata/crawls.js";
export type { DeliveryReport } from "@api-contracts/contract-core/server";
