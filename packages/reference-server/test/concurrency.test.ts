import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultFixtures, type Fixtures } from "../src/index.js";
import { startApi, type ApiUnderTest } from "./helpers.js";

const BALANCE = 150;
const REQUESTS = 200;

/** The default world with the metered feature granting exactly BALANCE units. */
function fixturesWithBalance(balance: number): Fixtures {
  const fixtures = structuredClone(defaultFixtures);
  const ids = fixtures.entitlements;
  const world = fixtures.world!.entitlements;
  world.products.push({ ...structuredClone(world.products[0]!), id: "exact", name: "Exact", is_default: false, items: [{ type: "feature", feature_id: ids.metered_feature_id, feature_type: "single_use", included_usage: balance, interval: "month" }] });
  world.customers.push({ id: "cus_race", products: ["exact"] });
  return fixtures;
}

describe("concurrent checks", () => {
  let api: ApiUnderTest;
  beforeAll(async () => {
    api = await startApi("entitlements", { fixtures: fixturesWithBalance(BALANCE) });
  });
  afterAll(async () => {
    await api.server.close();
  });

  it(`check: ${REQUESTS} concurrent send_event checks on a balance of ${BALANCE} allow exactly ${BALANCE} and never go below zero`, async () => {
    const feature = defaultFixtures.entitlements.metered_feature_id;
    const answers = await Promise.all(
      Array.from({ length: REQUESTS }, () => api.post("/v1/balances.check", { customer_id: "cus_race", feature_id: feature, send_event: true })),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.body.allowed).length).toBe(BALANCE);
    expect(answers.every((a) => a.body.balance.remaining >= 0)).toBe(true);
    const after = await api.post("/v1/balances.check", { customer_id: "cus_race", feature_id: feature });
    expect(after.body.balance).toMatchObject({ remaining: 0, usage: BALANCE });
  });
}, 120_000);
