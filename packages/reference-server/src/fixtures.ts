import { readFileSync, writeFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { contractOf, describeFieldError, fieldErrors, FixturesFormatError, parseFixtures, type ApiKeys, type EntitlementsFixtures, type FieldError, type Fixtures as FixturesFormat, type WebdataFixtures } from "@api-contracts/contract-core";
import type { components as EntComponents } from "@api-contracts/entitlements-client";
import type { components as WebComponents } from "@api-contracts/webdata-client";

export type Feature = EntComponents["schemas"]["Feature"];
export type Product = EntComponents["schemas"]["Product"];
export type Monitor = WebComponents["schemas"]["Monitor"];
export type InteractSession = WebComponents["schemas"]["InteractSession"];

/** A customer of the in-memory world: the products it is on and the usage already recorded. */
export interface WorldCustomer {
  id: string;
  name?: string;
  /** Ids of products (plans and add-ons) the customer is on; their items grant the balances. */
  products: string[];
  /** Usage already recorded in the current period, by feature id. */
  usage?: Record<string, number>;
  /** Sub-scopes (seats, projects) with balances of their own. */
  entities?: WorldEntity[];
}

/** An entity of a customer: by default it is granted what the customer's products grant. */
export interface WorldEntity {
  id: string;
  name?: string;
  /** Products granting this entity's balances; defaults to the customer's products. */
  products?: string[];
  usage?: Record<string, number>;
}

/** A crawl job known before the server starts (for example one that already completed). */
export interface WorldCrawl {
  id: string;
  url: string;
  status: "scraping" | "completed" | "cancelled" | "failed";
}

/** Credits one API key used in one calendar month. */
export interface WorldCreditUsage {
  apiKey: string;
  startDate: string;
  endDate: string;
  credits: number;
}

/** The objects the server starts with; a type alias, so that it fits the kit's open `world` member. */
export type World = {
  entitlements: {
    env: "sandbox" | "live";
    features: Feature[];
    products: Product[];
    customers: WorldCustomer[];
  };
  webdata: {
    monitors: Monitor[];
    sessions: InteractSession[];
    crawls?: WorldCrawl[];
    /** The plan's token allowance and billing period; remaining tokens are derived from credit usage. */
    token_usage: { planTokens: number; billingPeriodStart: string | null; billingPeriodEnd: string | null };
    credit_usage: WorldCreditUsage[];
  };
};

/** The fixtures format (contract-core's, which the kit reads), with the `world` this server is seeded from. */
export interface Fixtures extends FixturesFormat {
  world?: World;
}

/** Fixtures this server can serve both APIs from: both sections of ids, both keys, and a world. */
export interface SeededFixtures extends Fixtures {
  entitlements: EntitlementsFixtures;
  webdata: WebdataFixtures;
  api_keys: Required<ApiKeys>;
  world: World;
}

const CREATED = 1735689600000; // 2025-01-01T00:00:00Z

function product(id: string, name: string, items: Product["items"], extra: Partial<Product> = {}): Product {
  return {
    id,
    name,
    group: null,
    env: "sandbox",
    is_add_on: false,
    is_default: false,
    archived: false,
    version: 1,
    created_at: CREATED,
    items,
    free_trial: null,
    base_variant_id: null,
    billing_controls: { auto_topups: [], spend_limits: [] },
    ...extra,
  };
}

function feature(id: string, name: string, type: Feature["type"], consumable: boolean, extra: Partial<Feature> = {}): Feature {
  return { id, name, type, consumable, archived: false, event_names: [], display: { singular: name.toLowerCase(), plural: `${name.toLowerCase()}s` }, ...extra };
}

const monthly = { interval: "month", interval_count: 1 } as const;

/** The built-in world: one customer on a Pro plan, a free customer, monitors and sessions. */
export const defaultFixtures: SeededFixtures = {
  entitlements: {
    customer_id: "cus_acme",
    metered_feature_id: "messages",
    boolean_feature_id: "advanced_analytics",
    unlimited_feature_id: "api_calls",
    denied_feature_id: "sso",
    unknown_customer_id: "cus_does_not_exist",
  },
  webdata: { monitor_id: "3f9a2c4e-8b1d-4e6f-9a7c-2d5e8f1b3c6a", crawl_url: "https://example.com" },
  api_keys: { entitlements: "am_sk_test_reference_server_key", webdata: "fc-0123456789abcdef0123456789abcdef" },
  world: {
    entitlements: {
      env: "sandbox",
      features: [
        feature("messages", "Message", "metered", true, { event_names: ["message.sent"] }),
        feature("api_calls", "API call", "metered", true, { event_names: ["api.call"] }),
        feature("seats", "Seat", "metered", false),
        feature("ai_credits", "AI credit", "credit_system", true, { credit_schema: [{ metered_feature_id: "messages", credit_cost: 2 }] }),
        feature("advanced_analytics", "Advanced analytics", "boolean", false),
        feature("sso", "Single sign-on", "boolean", false),
      ],
      products: [
        product("free", "Free", [{ type: "feature", feature_id: "messages", feature_type: "single_use", included_usage: 100, ...monthly }], { is_default: true }),
        product("pro", "Pro", [
          { type: "price", feature_id: null, price: 49, ...monthly },
          { type: "feature", feature_id: "messages", feature_type: "single_use", included_usage: 1000, ...monthly },
          { type: "feature", feature_id: "api_calls", feature_type: "single_use", included_usage: "inf", ...monthly },
          { type: "feature", feature_id: "seats", feature_type: "continuous_use", included_usage: 5, interval: null },
          { type: "feature", feature_id: "ai_credits", feature_type: "single_use", included_usage: 200, ...monthly },
          { type: "feature", feature_id: "advanced_analytics", feature_type: "boolean" },
        ]),
        product("enterprise", "Enterprise", [
          { type: "price", feature_id: null, price: 499, ...monthly },
          { type: "feature", feature_id: "messages", feature_type: "single_use", included_usage: 100000, ...monthly },
          { type: "feature", feature_id: "api_calls", feature_type: "single_use", included_usage: "inf", ...monthly },
          { type: "feature", feature_id: "advanced_analytics", feature_type: "boolean" },
          { type: "feature", feature_id: "sso", feature_type: "boolean" },
        ]),
      ],
      customers: [
        {
          id: "cus_acme",
          name: "Acme Inc.",
          products: ["pro"],
          usage: { seats: 2 },
          entities: [
            { id: "seat_ada", name: "Ada", usage: { messages: 40 } },
            { id: "seat_grace", name: "Grace", products: ["free"] },
          ],
        },
        { id: "cus_hobby", name: "Hobbyist", products: ["free"], usage: { messages: 100 } },
      ],
    },
    webdata: {
      monitors: [
        {
          id: "3f9a2c4e-8b1d-4e6f-9a7c-2d5e8f1b3c6a",
          name: "Competitor pricing",
          status: "active",
          schedule: { cron: "0 8 * * 1-5", timezone: "Europe/Berlin" },
          nextRunAt: "2025-06-03T06:00:00.000Z",
          lastRunAt: "2025-06-02T06:00:00.000Z",
          currentCheckId: "7b1e4d2a-9c3f-4a5b-8e6d-1f2a3b4c5d6e",
          // Values across the whole range the service's description allows, so that a client or a
          // contract test that expects narrower ones (integers, string maps) fails against this server.
          targets: [
            {
              type: "scrape",
              id: "2e7c9b14-5a3d-4f6e-8b1a-9c0d2e4f6a8b",
              urls: ["https://example.com/pricing"],
              scrapeOptions: { onlyMainContent: true, threatProtection: { riskScoreThreshold: 62.5 } },
            },
          ],
          webhook: {
            url: "https://hooks.example.com/monitor",
            headers: { "X-Hook-Secret": "s3cr3t", "X-Hook-Version": 2 },
            metadata: { team: "pricing", priority: 1.5, escalate: true, owners: ["ada"], route: null },
            events: ["monitor.check.completed"],
          },
          notification: { email: { enabled: true, recipients: ["pricing@example.com"], includeDiffs: true } },
          retentionDays: 30.5,
          estimatedCreditsPerMonth: 21.75,
          lastCheckSummary: { totalPages: 2, same: 1.5, changed: 0.5, new: 0, removed: 0, error: 0 },
          goal: "Tell me when a plan's price changes",
          judgeEnabled: false,
          createdAt: "2025-05-01T09:00:00.000Z",
          updatedAt: "2025-05-20T09:00:00.000Z",
        },
      ],
      sessions: [
        session("9d2f6a1c-4e8b-4c3a-b7d5-0e1f2a3b4c5d", "active", "2025-06-02T09:15:00.000Z", "2025-06-02T09:21:30.000Z"),
        session("5b8e1f3a-2c4d-4e6f-8a0b-1c2d3e4f5a6b", "destroyed", "2025-06-01T14:00:00.000Z", "2025-06-01T14:10:00.000Z"),
        // The service's own list example leaves `streamWebView` out.
        session("c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f", "active", "2025-06-02T10:05:00.000Z", "2025-06-02T10:06:00.000Z", false),
      ],
      crawls: [{ id: "0f6c2b8e-1d3a-4b5c-9e7f-a1b2c3d4e5f6", url: "https://example.com/docs", status: "completed" }],
      token_usage: { planTokens: 1500000, billingPeriodStart: "2025-06-01T00:00:00.000Z", billingPeriodEnd: "2025-07-01T00:00:00.000Z" },
      credit_usage: [
        { apiKey: "fc-0123456789abcdef0123456789abcdef", startDate: "2025-04-01T00:00:00.000Z", endDate: "2025-04-30T23:59:59.999Z", credits: 1200 },
        { apiKey: "fc-fedcba9876543210fedcba9876543210", startDate: "2025-04-01T00:00:00.000Z", endDate: "2025-04-30T23:59:59.999Z", credits: 300 },
        { apiKey: "fc-0123456789abcdef0123456789abcdef", startDate: "2025-05-01T00:00:00.000Z", endDate: "2025-05-31T23:59:59.999Z", credits: 2500 },
        { apiKey: "fc-0123456789abcdef0123456789abcdef", startDate: "2025-06-01T00:00:00.000Z", endDate: "2025-06-30T23:59:59.999Z", credits: 800 },
        { apiKey: "fc-fedcba9876543210fedcba9876543210", startDate: "2025-06-01T00:00:00.000Z", endDate: "2025-06-30T23:59:59.999Z", credits: 200 },
      ],
    },
  },
};

function session(id: string, status: "active" | "destroyed", createdAt: string, lastActivity: string, sendsStreamWebView = true): InteractSession {
  return {
    id,
    status,
    cdpUrl: `wss://browser.example.com/cdp/${id}`,
    liveViewUrl: `https://liveview.example.com/${id}`,
    interactiveLiveViewUrl: `https://liveview.example.com/${id}?interactive=true`,
    ...(sendsStreamWebView ? { streamWebView: true } : {}),
    createdAt,
    lastActivity,
  };
}

/**
 * What this server needs beyond the kit's format: both sections and both keys (it serves either
 * API from one file), and the shape of `world` around its API objects (those are checked against
 * the bundles' own schemas).
 */
const seededSchema = {
  type: "object",
  required: ["entitlements", "webdata", "api_keys"],
  properties: {
    api_keys: { required: ["entitlements", "webdata"] },
    world: {
      type: "object",
      required: ["entitlements", "webdata"],
      properties: {
        entitlements: {
          type: "object",
          required: ["features", "products", "customers"],
          properties: {
            env: { enum: ["sandbox", "live"] },
            features: { type: "array" },
            products: { type: "array" },
            customers: {
              type: "array",
              items: {
                type: "object",
                required: ["id", "products"],
                properties: {
                  id: { type: "string" },
                  products: { $ref: "#/$defs/ids" },
                  usage: { $ref: "#/$defs/usage" },
                  entities: {
                    type: "array",
                    items: { type: "object", required: ["id"], properties: { id: { type: "string" }, products: { $ref: "#/$defs/ids" }, usage: { $ref: "#/$defs/usage" } } },
                  },
                },
              },
            },
          },
        },
        webdata: {
          type: "object",
          required: ["monitors", "sessions", "token_usage", "credit_usage"],
          properties: {
            monitors: { type: "array" },
            sessions: { type: "array" },
            crawls: {
              type: "array",
              items: {
                type: "object",
                required: ["id", "url", "status"],
                properties: { id: { type: "string" }, url: { type: "string" }, status: { enum: ["scraping", "completed", "cancelled", "failed"] } },
              },
            },
            token_usage: {
              type: "object",
              required: ["planTokens", "billingPeriodStart", "billingPeriodEnd"],
              properties: {
                planTokens: { type: "number", minimum: 0 },
                billingPeriodStart: { type: ["string", "null"] },
                billingPeriodEnd: { type: ["string", "null"] },
              },
            },
            credit_usage: {
              type: "array",
              items: {
                type: "object",
                required: ["apiKey", "startDate", "endDate", "credits"],
                properties: { apiKey: { type: "string" }, startDate: { type: "string" }, endDate: { type: "string" }, credits: { type: "number", minimum: 0 } },
              },
            },
          },
        },
      },
    },
  },
  $defs: { ids: { type: "array", items: { type: "string" } }, usage: { type: "object", additionalProperties: { type: "number" } } },
};

/** A fixtures file that cannot seed the server; the message names what is wrong. */
export class FixturesError extends Error {
  override name = "FixturesError";
}

let seededValidator: ReturnType<Ajv2020["compile"]> | undefined;

/** ajv errors as sentences naming the member, its path starting at `at`. */
function describeAt(errors: Parameters<typeof fieldErrors>[0], at: FieldError["path"]): string[] {
  return fieldErrors(errors, "body").map((error) => describeFieldError({ ...error, path: [...at, ...error.path] }));
}

/**
 * Checks a fixtures object: the fixtures format, what this server needs besides, every world object
 * against the bundles' schemas, and that the ids the contract kit uses point at objects with the
 * properties it relies on. Returns the fixtures with a world (the built-in one when the file has none).
 */
export function validateFixtures(input: unknown, source = "fixtures"): SeededFixtures {
  try {
    parseFixtures(input, source);
  } catch (error) {
    throw error instanceof FixturesFormatError ? new FixturesError(error.message) : error;
  }
  seededValidator ??= new Ajv2020({ allErrors: true, strict: false }).compile(seededSchema);
  if (!seededValidator(input)) throw new FixturesError(`${source}: ${describeAt(seededValidator.errors, []).join("; ")}`);
  const fixtures = input as SeededFixtures;
  const world = (input as Fixtures).world ?? structuredClone(defaultFixtures.world);
  const problems: string[] = [];

  const ent = contractOf("entitlements").validators;
  const web = contractOf("webdata").validators;
  const checkAll = (validator: ReturnType<typeof ent.component>, list: unknown[], at: string[]): void => {
    list.forEach((item, i) => {
      if (!validator(item)) problems.push(...describeAt(validator.errors, ["world", ...at, i]));
    });
  };
  checkAll(ent.component("Feature"), world.entitlements.features, ["entitlements", "features"]);
  checkAll(ent.component("Product"), world.entitlements.products, ["entitlements", "products"]);
  checkAll(web.component("Monitor"), world.webdata.monitors, ["webdata", "monitors"]);
  checkAll(web.component("InteractSession"), world.webdata.sessions, ["webdata", "sessions"]);

  const features = new Map(world.entitlements.features.map((f) => [f.id, f]));
  const products = new Map(world.entitlements.products.map((p) => [p.id, p]));
  for (const p of world.entitlements.products) {
    for (const item of p.items) {
      if (item.feature_id && !features.has(item.feature_id)) problems.push(`product ${p.id} grants unknown feature ${item.feature_id}`);
    }
  }
  const customers = new Map(world.entitlements.customers.map((c) => [c.id, c]));
  for (const c of world.entitlements.customers) {
    const owned = [...c.products, ...(c.entities ?? []).flatMap((e) => e.products ?? [])];
    for (const id of owned) if (!products.has(id)) problems.push(`customer ${c.id} is on unknown product ${id}`);
  }

  const ids = fixtures.entitlements;
  const customer = customers.get(ids.customer_id);
  const grants = (featureId: string) => (customer?.products ?? []).flatMap((pid) => (products.get(pid)?.items ?? []).filter((item) => item.feature_id === featureId));
  if (!customer) problems.push(`entitlements.customer_id ${ids.customer_id} is not a customer of the world`);
  else {
    const metered = features.get(ids.metered_feature_id);
    const meteredGrant = grants(ids.metered_feature_id)
      .map((item) => item.included_usage)
      .reduce<number>((sum, v) => sum + (typeof v === "number" ? v : Number.POSITIVE_INFINITY), 0);
    const used = customer.usage?.[ids.metered_feature_id] ?? 0;
    if (metered?.type !== "metered" || !metered.consumable) problems.push(`entitlements.metered_feature_id ${ids.metered_feature_id} must be a consumable metered feature`);
    else if (!Number.isFinite(meteredGrant) || meteredGrant - used < 100) problems.push(`entitlements.metered_feature_id ${ids.metered_feature_id} must leave the customer a finite balance of at least 100`);
    if (features.get(ids.boolean_feature_id)?.type !== "boolean" || grants(ids.boolean_feature_id).length === 0)
      problems.push(`entitlements.boolean_feature_id ${ids.boolean_feature_id} must be a boolean feature in the customer's plan`);
    if (!grants(ids.unlimited_feature_id).some((item) => item.included_usage === "inf"))
      problems.push(`entitlements.unlimited_feature_id ${ids.unlimited_feature_id} must be unlimited for the customer`);
    if (features.get(ids.denied_feature_id)?.type !== "boolean" || grants(ids.denied_feature_id).length > 0)
      problems.push(`entitlements.denied_feature_id ${ids.denied_feature_id} must be a boolean feature not in the customer's plan`);
  }
  if (customers.has(ids.unknown_customer_id)) problems.push(`entitlements.unknown_customer_id ${ids.unknown_customer_id} must not be a customer of the world`);
  if (!world.webdata.monitors.some((m) => m.id === fixtures.webdata.monitor_id)) problems.push(`webdata.monitor_id ${fixtures.webdata.monitor_id} is not a monitor of the world`);

  if (problems.length > 0) throw new FixturesError(`${source}: ${problems.join("; ")}`);
  return { ...fixtures, world };
}

/** Reads and validates a fixtures file. */
export function loadFixtures(file: string): SeededFixtures {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new FixturesError(`${file}: ${(error as Error).message}`);
  }
  return validateFixtures(parsed, file);
}

/** Writes the built-in fixtures to a file, for editing and for the contract kit. */
export function writeFixtures(file: string, fixtures: Fixtures = defaultFixtures): void {
  writeFileSync(file, `${JSON.stringify(fixtures, null, 2)}\n`);
}
