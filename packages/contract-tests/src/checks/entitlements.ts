import { randomUUID } from "node:crypto";
import { isObject } from "@api-contracts/contract-core";
import { createEntitlementsClient } from "@api-contracts/entitlements-client";
import type { Contract } from "../judge.js";
import type { EntitlementsFixtures } from "../fixtures.js";
import { handCheck, unknownIdCheck, successCheck } from "./common.js";
import { CheckFailure, expectAnswer, fail, pass, requireAnswer, snippet, type Check, type CheckContext, type KitApi } from "./types.js";

/** Ids used at schema level when no fixtures are given: a spec-faithful mock accepts any id. */
const PLACEHOLDER: EntitlementsFixtures = {
  customer_id: "cus_contract_test",
  metered_feature_id: "messages",
  boolean_feature_id: "sso",
  unlimited_feature_id: "seats",
  denied_feature_id: "premium_support",
  unknown_customer_id: "cus_unknown_contract_test",
};

function entitlementsIds(ctx: Pick<CheckContext, "fixtures"> | undefined): EntitlementsFixtures {
  return ctx?.fixtures?.entitlements ?? PLACEHOLDER;
}

type Body = Record<string, unknown>;

async function check(ctx: CheckContext, body: Body, step: string): Promise<Body> {
  return requireAnswer(await ctx.caller.call("checkAccess", { body: { customer_id: entitlementsIds(ctx).customer_id, ...body } }), 200, step);
}

/** The remaining balance of the metered feature, read from a check of 1 unit. */
async function remaining(ctx: CheckContext, step: string): Promise<number> {
  const body = await check(ctx, { feature_id: entitlementsIds(ctx).metered_feature_id, required_balance: 1 }, step);
  const value = isObject(body.balance) ? body.balance.remaining : undefined;
  if (typeof value !== "number") throw new CheckFailure(`${step}: the metered feature has no numeric balance.remaining`);
  if (value < 10) throw new CheckFailure(`${step}: the metered feature has ${value} left; behaviour checks need at least 10 (refill the fixture customer)`);
  return value;
}

/** The balance of the metered feature, then a lock of 3 of its units placed by a check. */
async function lockThree(ctx: CheckContext): Promise<{ featureId: string; before: number; lockId: string; locked: Body }> {
  const featureId = entitlementsIds(ctx).metered_feature_id;
  const before = await remaining(ctx, "reading the balance");
  const lockId = `lock_${randomUUID()}`;
  const locked = await check(ctx, { feature_id: featureId, required_balance: 3, lock: { lock_id: lockId, enabled: true } }, "check with a lock of 3 units");
  return { featureId, before, lockId, locked };
}

function expectAllowed(body: Body, expected: boolean, step: string): void {
  if (body.allowed !== expected) throw new CheckFailure(`${step}: expected allowed ${expected}, got ${JSON.stringify(body.allowed)}`);
}

const behavior = (operation: string, name: string, what: string, run: Check["run"]) => handCheck(operation, name, "behavior", what, run);

const CHECK_OPERATIONS = ["checkAccess", "checkAccessLegacy"] as const;
const TRACK_OPERATIONS = ["trackUsage", "trackUsageLegacy"] as const;

/** Every check of the Entitlements API, in the order they run. */
function entitlementsChecks(contract: Contract): Check[] {
  const known = new Set(contract.listOperations().map((op) => op.operationId));
  const checks: Check[] = [];

  const customerOperations = [
    ...CHECK_OPERATIONS.map((operation) => ({ operation, what: "a check of a metered feature answers as documented", extra: {} })),
    ...TRACK_OPERATIONS.map((operation) => ({ operation, what: "tracking one unit of a metered feature answers as documented", extra: { value: 1 } })),
  ];
  for (const { operation, what, extra } of customerOperations.filter(({ operation }) => known.has(operation))) {
    const valid = (ctx: CheckContext): Body => ({ customer_id: entitlementsIds(ctx).customer_id, feature_id: entitlementsIds(ctx).metered_feature_id, ...extra });
    checks.push(
      successCheck(operation, what, (ctx) => ({ body: valid(ctx) })),
      unknownIdCheck(
        operation,
        "unknown-customer",
        "a customer id the server does not know",
        (ctx) => ({ body: { ...valid(ctx), customer_id: ctx.fixtures?.entitlements?.unknown_customer_id ?? `cus_unknown_${randomUUID()}` } }),
        { member: "code", value: "customer_not_found" },
      ),
      // Ids no server can know: made afresh for every run.
      unknownIdCheck(operation, "unknown-feature", "a feature id the server does not know", (ctx) => ({ body: { ...valid(ctx), feature_id: `feature_unknown_${randomUUID()}` } }), { member: "code", value: "feature_not_found" }),
      unknownIdCheck(operation, "unknown-entity", "an entity id the customer does not have", (ctx) => ({ body: { ...valid(ctx), entity_id: `entity_unknown_${randomUUID()}` } }), { member: "code", value: "entity_not_found" }),
    );
  }

  if (known.has("finalizeLock")) {
    checks.push(
      handCheck("finalizeLock", "success", "schema", "releasing a lock placed by a check answers as documented", async (ctx) => {
        const lockId = `lock_${randomUUID()}`;
        await check(ctx, { feature_id: entitlementsIds(ctx).metered_feature_id, lock: { lock_id: lockId, enabled: true } }, "placing the lock");
        return expectAnswer(await ctx.caller.call("finalizeLock", { body: { lock_id: lockId, action: "release" } }), "2xx");
      }),
    );
  }

  checks.push(...behaviorChecks());
  return checks;
}

function behaviorChecks(): Check[] {
  return [
    behavior("checkAccess", "required-balance-default", "required_balance defaults to 1 and is echoed", async (ctx) => {
      const body = await check(ctx, { feature_id: entitlementsIds(ctx).metered_feature_id }, "check without required_balance");
      if (body.required_balance !== 1) return fail(`expected required_balance 1 when omitted, got ${JSON.stringify(body.required_balance)}`);
      const echoed = await check(ctx, { feature_id: entitlementsIds(ctx).metered_feature_id, required_balance: 3 }, "check with required_balance 3");
      if (echoed.required_balance !== 3) return fail(`expected required_balance 3 to be echoed, got ${JSON.stringify(echoed.required_balance)}`);
      return pass("required_balance is 1 when omitted and echoes 3 when sent");
    }),
    behavior("checkAccess", "allowed-when-balance-covers", "allowed is true when the balance covers required_balance and false one unit beyond", async (ctx) => {
      const left = await remaining(ctx, "reading the balance");
      const exact = await check(ctx, { feature_id: entitlementsIds(ctx).metered_feature_id, required_balance: left }, `check of all ${left} units`);
      expectAllowed(exact, true, `check of all ${left} units`);
      const over = await check(ctx, { feature_id: entitlementsIds(ctx).metered_feature_id, required_balance: left + 1 }, `check of ${left + 1} units`);
      expectAllowed(over, false, `check of ${left + 1} units (balance ${left})`);
      return pass(`balance ${left}: ${left} units allowed, ${left + 1} denied`);
    }),
    behavior("checkAccess", "allowed-when-unlimited", "an unlimited feature is allowed whatever the requirement", async (ctx) => {
      const body = await check(ctx, { feature_id: entitlementsIds(ctx).unlimited_feature_id, required_balance: 1_000_000_000 }, "check of the unlimited feature");
      expectAllowed(body, true, "check of 1e9 units of the unlimited feature");
      return pass("the unlimited feature allows 1e9 units");
    }),
    behavior("checkAccess", "allowed-when-boolean-in-plan", "a boolean feature in the plan is allowed and carries its flag", async (ctx) => {
      const body = await check(ctx, { feature_id: entitlementsIds(ctx).boolean_feature_id }, "check of the boolean feature");
      expectAllowed(body, true, "check of the boolean feature in the plan");
      if (body.flag === null || typeof body.flag !== "object") return fail(`expected a flag for the boolean feature in the plan, got ${JSON.stringify(body.flag)}`);
      return pass("allowed with its flag");
    }),
    behavior("checkAccess", "denied-when-not-in-plan", "a boolean feature outside the plan is denied", async (ctx) => {
      const body = await check(ctx, { feature_id: entitlementsIds(ctx).denied_feature_id }, "check of the feature outside the plan");
      expectAllowed(body, false, "check of the feature outside the plan");
      return pass("denied");
    }),
    // The live service sends `balances` only with send_event or a lock (useautumn/autumn@187c0a7fd818
    // runCheckWithTrackV2); where it is sent, the seed says it holds the checked feature.
    behavior("checkAccess", "balances-contain-checked-feature", "balances, when sent, contains the checked feature", async (ctx) => {
      const featureId = entitlementsIds(ctx).metered_feature_id;
      const body = await check(ctx, { feature_id: featureId }, "check of the metered feature");
      const balances = body.balances;
      if (balances === undefined) return pass("no balances sent (a plain check may leave them out)");
      if (typeof balances !== "object" || balances === null || !(featureId in balances)) {
        return fail(`expected balances to contain ${featureId}, got ${JSON.stringify(balances)}`);
      }
      return pass(`balances contains ${featureId}`);
    }),
    behavior("checkAccess", "preview-usage-limit", "a denied check with with_preview carries preview with scenario usage_limit", async (ctx) => {
      const left = await remaining(ctx, "reading the balance");
      const body = await check(ctx, { feature_id: entitlementsIds(ctx).metered_feature_id, required_balance: left + 1, with_preview: true }, "denied check with preview");
      expectAllowed(body, false, "check beyond the balance");
      const preview = body.preview as Body | undefined | null;
      if (!preview || preview.scenario !== "usage_limit") return fail(`expected preview.scenario usage_limit, got ${JSON.stringify(preview ?? null)}`);
      return pass("preview.scenario is usage_limit");
    }),
    behavior("checkAccess", "preview-feature-flag", "a check of a feature outside the plan with with_preview carries preview with scenario feature_flag", async (ctx) => {
      const body = await check(ctx, { feature_id: entitlementsIds(ctx).denied_feature_id, with_preview: true }, "denied check with preview");
      expectAllowed(body, false, "check of the feature outside the plan");
      const preview = body.preview as Body | undefined | null;
      if (!preview || preview.scenario !== "feature_flag") return fail(`expected preview.scenario feature_flag, got ${JSON.stringify(preview ?? null)}`);
      return pass("preview.scenario is feature_flag");
    }),
    behavior("checkAccess", "preview-only-when-denied-and-asked", "preview is absent when access is allowed or with_preview is not set", async (ctx) => {
      const allowed = await check(ctx, { feature_id: entitlementsIds(ctx).metered_feature_id, with_preview: true }, "allowed check with preview");
      expectAllowed(allowed, true, "check of 1 unit");
      if (allowed.preview !== undefined && allowed.preview !== null) return fail(`allowed check carries preview ${JSON.stringify(allowed.preview)}`);
      const denied = await check(ctx, { feature_id: entitlementsIds(ctx).denied_feature_id }, "denied check without with_preview");
      expectAllowed(denied, false, "check of the feature outside the plan");
      if (denied.preview !== undefined && denied.preview !== null) return fail(`denied check without with_preview carries preview ${JSON.stringify(denied.preview)}`);
      return pass("no preview when allowed, none when not asked for");
    }),
    behavior("checkAccess", "send-event-deducts-when-allowed", "send_event deducts required_balance when access is allowed", async (ctx) => {
      const featureId = entitlementsIds(ctx).metered_feature_id;
      const before = await remaining(ctx, "reading the balance");
      const sent = await check(ctx, { feature_id: featureId, required_balance: 2, send_event: true }, "check with send_event of 2 units");
      expectAllowed(sent, true, "check with send_event of 2 units");
      const after = await remaining(ctx, "reading the balance afterwards");
      if (after !== before - 2) return fail(`balance went from ${before} to ${after}; expected ${before - 2}`);
      return pass(`balance went from ${before} to ${after}`);
    }),
    behavior("checkAccess", "send-event-no-deduction-when-denied", "send_event deducts nothing when access is denied", async (ctx) => {
      const featureId = entitlementsIds(ctx).metered_feature_id;
      const before = await remaining(ctx, "reading the balance");
      const sent = await check(ctx, { feature_id: featureId, required_balance: before + 1, send_event: true }, "denied check with send_event");
      expectAllowed(sent, false, `check with send_event of ${before + 1} units`);
      const after = await remaining(ctx, "reading the balance afterwards");
      if (after !== before) return fail(`a denied send_event changed the balance from ${before} to ${after}`);
      return pass(`balance stayed ${before}`);
    }),
    behavior("checkAccess", "lock-holds-units", "a lock holds its units: a check needing them is denied while it is held", async (ctx) => {
      const { featureId, before, lockId, locked } = await lockThree(ctx);
      expectAllowed(locked, true, "check with a lock of 3 units");
      try {
        const beyond = await check(ctx, { feature_id: featureId, required_balance: before - 2 }, `check of ${before - 2} units while 3 are held`);
        expectAllowed(beyond, false, `check of ${before - 2} units while 3 of ${before} are held`);
        const within = await check(ctx, { feature_id: featureId, required_balance: before - 3 }, `check of ${before - 3} units while 3 are held`);
        expectAllowed(within, true, `check of ${before - 3} units while 3 of ${before} are held`);
      } finally {
        await ctx.caller.call("finalizeLock", { body: { lock_id: lockId, action: "release" } });
      }
      return pass(`with 3 of ${before} held, ${before - 2} denied and ${before - 3} allowed`);
    }),
    behavior("finalizeLock", "release-gives-units-back", "finalize with release gives the held units back", async (ctx) => {
      const { featureId, before, lockId } = await lockThree(ctx);
      requireAnswer(await ctx.caller.call("finalizeLock", { body: { lock_id: lockId, action: "release" } }), 200, "release");
      const after = await remaining(ctx, "reading the balance after release");
      if (after !== before) return fail(`balance was ${before} before the lock and ${after} after release`);
      const all = await check(ctx, { feature_id: featureId, required_balance: before }, `check of all ${before} units`);
      expectAllowed(all, true, `check of all ${before} units after release`);
      return pass(`balance back to ${before}`);
    }),
    behavior("finalizeLock", "confirm-keeps-units", "finalize with confirm keeps the held units deducted", async (ctx) => {
      const { before, lockId } = await lockThree(ctx);
      requireAnswer(await ctx.caller.call("finalizeLock", { body: { lock_id: lockId, action: "confirm" } }), 200, "confirm");
      const after = await remaining(ctx, "reading the balance after confirm");
      if (after !== before - 3) return fail(`balance was ${before} before the lock and ${after} after confirm; expected ${before - 3}`);
      return pass(`balance went from ${before} to ${after}`);
    }),
    behavior("finalizeLock", "unknown-lock", "finalizing a lock id the server never issued gives the refusal the facts document for it", async (ctx) => {
      const result = await ctx.caller.call("finalizeLock", { body: { lock_id: `lock_unknown_${randomUUID()}`, action: "confirm" } });
      requireAnswer(result, 400, "finalize of an unknown lock");
      const why = ctx.contract.core.stateRefusal("finalizeLock", { status: result.exchange.status, body: result.body });
      return why ? pass(`400: ${why}`) : fail(`expected the refusal of a lock no one holds, got ${snippet(result.exchange.bodyText)}`);
    }),
  ];
}

/** The members of the fixtures that name a feature; the checks name the metered one at schema level, every one at behaviour level. */
const FEATURES = ["metered_feature_id", "boolean_feature_id", "unlimited_feature_id", "denied_feature_id"] as const;

/** The kit's entry for the Entitlements API: its client, its checks, and what its fixtures name. */
export const entitlements: KitApi = {
  name: "entitlements",
  client: createEntitlementsClient,
  checks: entitlementsChecks,
  hints(fixtures) {
    const ids = entitlementsIds({ fixtures });
    return {
      customer_id: [ids.customer_id],
      feature_id: FEATURES.map((member) => ids[member]),
    };
  },
  async preflight(ctx) {
    const ids = entitlementsIds(ctx);
    const from = ctx.fixtures?.entitlements ? "in the fixtures" : "the kit's placeholder: no --fixtures given";
    const fix = "pass --fixtures with ids it holds (contract-test init --service entitlements writes a file to fill in)";
    for (const member of ctx.level === "behavior" ? FEATURES : FEATURES.slice(0, 1)) {
      const feature = ids[member];
      const result = await ctx.caller.call("checkAccess", { body: { customer_id: ids.customer_id, feature_id: feature } });
      const code = result.exchange.status === 404 ? ctx.contract.core.codeOf(result.body) : undefined;
      if (code === "customer_not_found") return `the target holds no customer ${JSON.stringify(ids.customer_id)} (customer_id, ${from}): ${fix}`;
      if (code === "feature_not_found") return `the target holds no feature ${JSON.stringify(feature)} (${member}, ${from}): ${fix}`;
    }
    return undefined;
  },
};
