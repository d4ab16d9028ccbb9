// Generated from schema/fixtures.schema.json by scripts/generate-types.mjs.
// Do not edit: change the schema and run `npm run generate -w @api-contracts/contract-core`
// (the build does it too).

/**
 * Ids in the target that the contract-test kit's behaviour checks act on, and the API keys to use when none is given on the command line. Only the section of the service under test is needed. Other members (such as a server's own `world` it is seeded from) are allowed and ignored by the kit.
 */
export interface Fixtures {
  entitlements?: EntitlementsFixtures;
  webdata?: WebdataFixtures;
  api_keys?: ApiKeys;
  /**
   * Seed data of a server under test (the reference server's in-memory world). The kit ignores it.
   */
  world?: {
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
/**
 * Ids of the Entitlements target.
 *
 * This interface was referenced by `Fixtures`'s JSON-Schema
 * via the `definition` "EntitlementsFixtures".
 */
export interface EntitlementsFixtures {
  /**
   * A customer the target knows: the id of a customer created on it (Autumn: POST /v1/customers).
   */
  customer_id: string;
  /**
   * A consumable metered feature with a finite balance of at least 100 for the customer and no overage: a feature of the customer's plan with included usage and no overage price. Each behaviour run spends about 7 units.
   */
  metered_feature_id: string;
  /**
   * A boolean (on/off) feature in the customer's plan.
   */
  boolean_feature_id: string;
  /**
   * A feature the customer may use without limit: a metered feature the customer's plan grants as unlimited.
   */
  unlimited_feature_id: string;
  /**
   * A boolean feature that is not in the customer's plan: one your server knows, attached to another plan or to none.
   */
  denied_feature_id: string;
  /**
   * A customer id the target does not know: any id never created on it.
   */
  unknown_customer_id: string;
}
/**
 * Ids of the Web Data target.
 *
 * This interface was referenced by `Fixtures`'s JSON-Schema
 * via the `definition` "WebdataFixtures".
 */
export interface WebdataFixtures {
  /**
   * A monitor the target knows: the id your server gave a monitor you created.
   */
  monitor_id: string;
  /**
   * An http(s) URL the target accepts as the start of a crawl: a site your server may fetch.
   */
  crawl_url: string;
}
/**
 * A key the target accepts, per API (its name in the registry); `--api-key` wins over it.
 */
export interface ApiKeys {
  /**
   * Key for the Entitlements target.
   */
  entitlements?: string;
  /**
   * Key for the Web Data target.
   */
  webdata?: string;
  /**
   * Key for the target of another registered API.
   */
  [k: string]: string | undefined;
}
