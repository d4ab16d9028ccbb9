export { startReferenceServer, buildReferenceApp, type ReferenceServer, type ReferenceServerOptions, type Service } from "./server.js";
export {
  defaultFixtures,
  loadFixtures,
  validateFixtures,
  writeFixtures,
  FixturesError,
  type Fixtures,
  type World,
  type WorldCustomer,
  type WorldEntity,
  type WorldCrawl,
  type WorldCreditUsage,
} from "./fixtures.js";
export { TOKENS_PER_CREDIT } from "./webdata/store.js";
