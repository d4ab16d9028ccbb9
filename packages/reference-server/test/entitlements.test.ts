import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultFixtures } from "../src/index.js";
import { startApi, manualClock, type ApiUnderTest } from "./helpers.js";

const ids = defaultFixtures.entitlements;
const CHECK = "/v1/balances.check";
const HOUR = 3_600_000;

describe("entitlements reference server", () => {
  const clock = manualClock();
  let api: ApiUnderTest;
  beforeAll(async () => {
    api = await startApi("entitlements", { now: clock.now });
  });
  afterAll(async () => {
    await api.server.close();
  });

  const remaining = async (feature = ids.metered_feature_id, extra: Record<string, unknown> = {}): Promise<number> => {
    const { body } = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: feature, ...extra });
    return body.balance.remaining;
  };

  it("check: allowed when the remaining balance covers required_balance, which defaults to 1", async () => {
    const { status, body } = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id });
    expect(status).toBe(200);
    expect(body).toMatchObject({ allowed: true, required_balance: 1, flag: null, balance: { feature_id: ids.metered_feature_id, granted: 1000, unlimited: false } });
    const denied = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id, required_balance: body.balance.remaining + 1 });
    expect(denied.body.allowed).toBe(false);
  });

  it("check: an unlimited feature is allowed whatever the required balance", async () => {
    const { body } = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.unlimited_feature_id, required_balance: 1e12 });
    expect(body).toMatchObject({ allowed: true, balance: { unlimited: true } });
  });

  it("check: a boolean feature in the plan is allowed with a flag and no balance", async () => {
    const { body } = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.boolean_feature_id });
    expect(body).toMatchObject({ allowed: true, balance: null, flag: { feature_id: ids.boolean_feature_id, plan_id: "pro" } });
  });

  it("check: a feature outside the plan is denied with neither balance nor flag, and the preview scenario is feature_flag", async () => {
    const { body } = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.denied_feature_id, with_preview: true });
    expect(body).toMatchObject({ allowed: false, balance: null, flag: null, preview: { scenario: "feature_flag", feature_id: ids.denied_feature_id } });
    expect(body.preview.products.map((p: { id: string }) => p.id)).toEqual(["enterprise"]);
  });

  it("check: an exhausted balance is denied with a usage_limit preview only when with_preview is true", async () => {
    const plain = await api.post(CHECK, { customer_id: "cus_hobby", feature_id: "messages" });
    expect(plain.body.allowed).toBe(false);
    expect(plain.body).not.toHaveProperty("preview");
    const { body } = await api.post(CHECK, { customer_id: "cus_hobby", feature_id: "messages", with_preview: true });
    expect(body).toMatchObject({ allowed: false, balance: { remaining: 0 }, preview: { scenario: "usage_limit", feature_name: "Message" } });
    expect(body.preview.products.length).toBeGreaterThan(0);
  });

  it("check: send_event deducts only when allowed", async () => {
    const before = await remaining();
    const allowed = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id, required_balance: 7, send_event: true });
    expect(allowed.body).toMatchObject({ allowed: true, balance: { remaining: before - 7 } });
    const denied = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id, required_balance: before, send_event: true });
    expect(denied.body.allowed).toBe(false);
    expect(await remaining()).toBe(before - 7);
  });

  it("check: a check without send_event changes nothing", async () => {
    const before = await remaining();
    await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id, required_balance: 5 });
    expect(await remaining()).toBe(before);
  });

  it("check: entity_id scopes the decision to the entity's own balance", async () => {
    const { body } = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: "messages", entity_id: "seat_ada" });
    expect(body).toMatchObject({ allowed: true, entity_id: "seat_ada", balance: { granted: 1000, usage: 40 } });
    const grace = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: "messages", entity_id: "seat_grace" });
    expect(grace.body.balance.granted).toBe(100);
    const missing = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: "messages", entity_id: "seat_nobody" });
    expect(missing).toMatchObject({ status: 404, body: { code: "entity_not_found" } });
  });

  it("check: expand=balance.feature,flag.feature embeds the feature objects", async () => {
    const metered = await api.post(`${CHECK}?expand=balance.feature,flag.feature`, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id });
    expect(metered.body.balance.feature).toMatchObject({ id: ids.metered_feature_id, type: "metered" });
    const flag = await api.post(`${CHECK}?expand=flag.feature`, { customer_id: ids.customer_id, feature_id: ids.boolean_feature_id });
    expect(flag.body.flag.feature).toMatchObject({ id: ids.boolean_feature_id, type: "boolean" });
    const plain = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id });
    expect(plain.body.balance).not.toHaveProperty("feature");
  });

  it("check: the legacy /v1/check path runs the same handler", async () => {
    const { body } = await api.post("/v1/check", { customer_id: ids.customer_id, feature_id: ids.boolean_feature_id });
    expect(body).toMatchObject({ allowed: true, flag: { feature_id: ids.boolean_feature_id } });
  });

  it("check: send_event or a lock on a boolean feature is 400 invalid_request, a lock on another non-consumable feature 400 invalid_inputs", async () => {
    const sendEvent = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.boolean_feature_id, send_event: true });
    expect(sendEvent).toMatchObject({ status: 400, body: { code: "invalid_request" } });
    const booleanLock = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.boolean_feature_id, lock: { lock_id: "flag-lock", enabled: true } });
    expect(booleanLock).toMatchObject({ status: 400, body: { code: "invalid_request" } });
    const lock = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: "seats", lock: { lock_id: "seat-lock", enabled: true } });
    expect(lock).toMatchObject({ status: 400, body: { code: "invalid_inputs" } });
  });

  it("check: unknown customer and unknown feature are 404 with their codes", async () => {
    const customer = await api.post(CHECK, { customer_id: ids.unknown_customer_id, feature_id: ids.metered_feature_id });
    expect(customer).toMatchObject({ status: 404, body: { code: "customer_not_found", env: "sandbox" } });
    const feature = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: "teleportation" });
    expect(feature).toMatchObject({ status: 404, body: { code: "feature_not_found", message: "Feature teleportation not found" } });
  });

  it("lock: a check with a lock holds required_balance units until finalized", async () => {
    const before = await remaining();
    const held = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id, required_balance: 30, lock: { lock_id: "job-1", enabled: true } });
    expect(held.body).toMatchObject({ allowed: true, balance: { remaining: before - 30 } });
    expect(await remaining()).toBe(before - 30);
  });

  it("lock: reusing a live lock_id is 409 lock_already_exists", async () => {
    const again = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id, lock: { lock_id: "job-1", enabled: true } });
    expect(again).toMatchObject({ status: 409, body: { code: "lock_already_exists" } });
  });

  it("finalize release gives the held units back", async () => {
    const before = await remaining();
    const { status, body } = await api.post("/v1/balances.finalize", { lock_id: "job-1", action: "release" });
    expect(status).toBe(200);
    expect(body).toEqual({ success: true });
    expect(await remaining()).toBe(before + 30);
  });

  it("finalize confirm keeps the held units deducted", async () => {
    const before = await remaining();
    await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id, required_balance: 12, lock: { lock_id: "job-2", enabled: true } });
    await api.post("/v1/balances.finalize", { lock_id: "job-2", action: "confirm" });
    const { body } = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id });
    expect(body.balance.remaining).toBe(before - 12);
    expect(body.balance.usage).toBeGreaterThanOrEqual(12);
  });

  it("finalize confirm with override_value commits that amount instead of the held one", async () => {
    const before = await remaining();
    await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id, required_balance: 50, lock: { lock_id: "job-3", enabled: true } });
    await api.post("/v1/balances.finalize", { lock_id: "job-3", action: "confirm", override_value: 8 });
    expect(await remaining()).toBe(before - 8);
  });

  it("finalize: override_value with release is 400 invalid_inputs, naming the member", async () => {
    await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id, lock: { lock_id: "job-4", enabled: true } });
    const { status, body } = await api.post("/v1/balances.finalize", { lock_id: "job-4", action: "release", override_value: 1 });
    expect(status).toBe(400);
    expect(body.code).toBe("invalid_inputs");
    expect(body.message).toContain("override_value");
    await api.post("/v1/balances.finalize", { lock_id: "job-4", action: "release" });
  });

  it("finalize: an unknown or already finalized lock is 400 invalid_request 'Lock not found for ID: <id>'", async () => {
    const unknown = await api.post("/v1/balances.finalize", { lock_id: "never-placed", action: "confirm" });
    expect(unknown).toMatchObject({ status: 400, body: { code: "invalid_request", message: "Lock not found for ID: never-placed" } });
    const twice = await api.post("/v1/balances.finalize", { lock_id: "job-3", action: "confirm" });
    expect(twice.body.message).toBe("Lock not found for ID: job-3");
  });

  it("lock: a denied check places no hold", async () => {
    const before = await remaining();
    const denied = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id, required_balance: before + 1, lock: { lock_id: "too-big", enabled: true } });
    expect(denied.body.allowed).toBe(false);
    const finalize = await api.post("/v1/balances.finalize", { lock_id: "too-big", action: "confirm" });
    expect(finalize.body.code).toBe("invalid_request");
  });

  it("lock expires at lock.expires_at and its units come back", async () => {
    const before = await remaining();
    await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id, required_balance: 20, lock: { lock_id: "job-5", enabled: true, expires_at: clock.now() + HOUR } });
    clock.advance(HOUR - 1);
    expect(await remaining()).toBe(before - 20);
    clock.advance(1);
    expect(await remaining()).toBe(before);
    const finalize = await api.post("/v1/balances.finalize", { lock_id: "job-5", action: "confirm" });
    expect(finalize.body.message).toBe("Lock not found for ID: job-5");
    const reuse = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id, lock: { lock_id: "job-5", enabled: true } });
    expect(reuse.body.allowed).toBe(true);
    await api.post("/v1/balances.finalize", { lock_id: "job-5", action: "release" });
  });

  it("lock: expires_at more than 24 hours ahead is 400 invalid_inputs", async () => {
    const { status, body } = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id, lock: { lock_id: "far", enabled: true, expires_at: clock.now() + 25 * HOUR } });
    expect(status).toBe(400);
    expect(body.code).toBe("invalid_inputs");
  });

  it("track: draws the balance down by feature_id, and a negative value gives it back", async () => {
    const before = await remaining();
    const used = await api.post("/v1/balances.track", { customer_id: ids.customer_id, feature_id: ids.metered_feature_id, value: 25 });
    expect(used.body).toMatchObject({ customer_id: ids.customer_id, value: 25, balance: { remaining: before - 25 } });
    await api.post("/v1/track", { customer_id: ids.customer_id, feature_id: ids.metered_feature_id, value: -25 });
    expect(await remaining()).toBe(before);
  });

  it("track: an event name draws down every feature that lists it", async () => {
    const before = await remaining();
    const { body } = await api.post("/v1/balances.track", { customer_id: ids.customer_id, event_name: "message.sent", value: 3 });
    expect(body).toMatchObject({ event_name: "message.sent", balances: { messages: { remaining: before - 3 } } });
  });

  it("track: an empty feature_id beside an event name counts as absent, as live", async () => {
    const before = await remaining();
    const { status, body } = await api.post("/v1/balances.track", { customer_id: ids.customer_id, feature_id: "", event_name: "message.sent", value: 2 });
    expect(status).toBe(200);
    expect(body).toMatchObject({ event_name: "message.sent", balances: { messages: { remaining: before - 2 } } });
  });

  it("track: an event name no feature listens to is 404 invalid_request, and records nothing", async () => {
    const before = await remaining();
    const { status, body } = await api.post("/v1/balances.track", { customer_id: ids.customer_id, event_name: "export.finished", value: 2 });
    expect(status).toBe(404);
    expect(body).toMatchObject({ code: "invalid_request", message: "No features found for event name: export.finished" });
    expect(await remaining()).toBe(before);
  });

  it("track: both or neither of feature_id and event_name is 400 invalid_inputs naming them", async () => {
    const both = await api.post("/v1/balances.track", { customer_id: ids.customer_id, feature_id: "messages", event_name: "message.sent" });
    expect(both).toMatchObject({ status: 400, body: { code: "invalid_inputs" } });
    expect(both.body.message).toContain("feature_id");
    const neither = await api.post("/v1/balances.track", { customer_id: ids.customer_id });
    expect(neither.body.message).toContain("event_name");
  });

  it("track: a used idempotency_key is 409 duplicate_idempotency_key and records nothing", async () => {
    const before = await remaining();
    await api.post("/v1/balances.track", { customer_id: ids.customer_id, feature_id: "messages", value: 2, idempotency_key: "req-1" });
    const again = await api.post("/v1/balances.track", { customer_id: ids.customer_id, feature_id: "messages", value: 2, idempotency_key: "req-1" });
    expect(again).toMatchObject({ status: 409, body: { code: "duplicate_idempotency_key" } });
    expect(await remaining()).toBe(before - 2);
  });

  it("track: a timestamp in the future is 400 invalid_inputs", async () => {
    const { status, body } = await api.post("/v1/balances.track", { customer_id: ids.customer_id, feature_id: "messages", timestamp: clock.now() + HOUR });
    expect(status).toBe(400);
    expect(body.code).toBe("invalid_inputs");
  });

  it("track: overage_behavior cap records at most what remains", async () => {
    const { body } = await api.post("/v1/balances.track", { customer_id: ids.customer_id, entity_id: "seat_grace", feature_id: "messages", value: 150, overage_behavior: "cap" });
    expect(body).toMatchObject({ value: 100, balance: { remaining: 0, usage: 100 } });
  });

  it("track: overage_behavior reject records nothing when the value does not fit, and is refused with event_name unless async", async () => {
    const before = await remaining();
    const track = (body: Record<string, unknown>) => api.post("/v1/balances.track", { customer_id: ids.customer_id, overage_behavior: "reject", ...body });
    expect(await track({ feature_id: ids.metered_feature_id, value: before + 5 })).toMatchObject({ status: 400, body: { code: "insufficient_balance" } });
    expect(await remaining()).toBe(before);
    expect((await track({ feature_id: ids.metered_feature_id, value: 1 })).body.balance).toMatchObject({ remaining: before - 1 });
    expect((await track({ event_name: "message.sent" })).status).toBe(400);
  });

  it("track: with a lock the value is held, not committed, until finalize confirms it", async () => {
    const before = await remaining();
    const held = await api.post("/v1/balances.track", { customer_id: ids.customer_id, feature_id: ids.metered_feature_id, value: 6, lock: { lock_id: "track-lock", enabled: true } });
    expect(held.body.balance).toMatchObject({ remaining: before - 6 });
    const usageBefore = held.body.balance.usage;
    await api.post("/v1/balances.finalize", { lock_id: "track-lock", action: "confirm" });
    const { body } = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id });
    expect(body.balance).toMatchObject({ remaining: before - 6, usage: usageBefore + 6 });
  });

  it("a consumable balance resets at next_reset_at", async () => {
    const { body } = await api.post(CHECK, { customer_id: "cus_hobby", feature_id: "messages" });
    expect(body.allowed).toBe(false);
    clock.advance(body.balance.next_reset_at - clock.now());
    const after = await api.post(CHECK, { customer_id: "cus_hobby", feature_id: "messages" });
    expect(after.body).toMatchObject({ allowed: true, balance: { usage: 0, remaining: 100 } });
    expect(after.body.balance.next_reset_at).toBeGreaterThan(clock.now());
  });

  it("errors: body validation failures are 400 invalid_inputs whose message names the field", async () => {
    const missing = await api.post(CHECK, { customer_id: ids.customer_id });
    expect(missing).toMatchObject({ status: 400, body: { code: "invalid_inputs" } });
    expect(missing.body.message).toContain("feature_id");
    const wrongType = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: "messages", required_balance: "five" });
    expect(wrongType.body.message).toContain("required_balance");
    const nested = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: "messages", customer_data: { email: "not an address" } });
    expect(nested.body.message).toContain("customer_data.email");
    const lock = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: "messages", lock: { lock_id: "x", enabled: false } });
    expect(lock.body.message).toContain("lock.enabled");
  });

  it("errors: malformed JSON is 400 invalid_inputs, never a 5xx", async () => {
    const { status, body } = await api.request("POST", CHECK, { rawBody: "{not json", template: CHECK });
    expect(status).toBe(400);
    expect(body.code).toBe("invalid_inputs");
  });

  it("errors: a malformed or unknown x-api-version is 400 invalid_api_version", async () => {
    const malformed = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: "messages" }, { headers: { "x-api-version": "latest" } });
    expect(malformed).toMatchObject({ status: 400, body: { code: "invalid_api_version" } });
    const unknown = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: "messages" }, { headers: { "x-api-version": "9.0.0" } });
    expect(unknown.body.code).toBe("invalid_api_version");
    const sdk = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: "messages" }, { headers: { "x-api-version": "2.4.0" } });
    expect(sdk.status).toBe(200);
  });

  it("auth: no bearer key is 401 no_secret_key, a wrong one 401 invalid_secret_key", async () => {
    const none = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: "messages" }, { auth: null });
    expect(none).toMatchObject({ status: 401, body: { code: "no_secret_key" } });
    const wrong = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: "messages" }, { auth: "Bearer am_sk_wrong" });
    expect(wrong).toMatchObject({ status: 401, body: { code: "invalid_secret_key" } });
  });

  it("errors: an unknown path answers 404 in the API's error shape", async () => {
    const response = await fetch(`${api.server.url}/v1/nothing-here`, { method: "POST", headers: { authorization: `Bearer ${api.apiKey}` } });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: "invalid_request", env: "sandbox" });
  });
});

describe("entitlements reference server: holds of either sign", () => {
  let api: ApiUnderTest;
  beforeAll(async () => {
    api = await startApi("entitlements");
  });
  afterAll(async () => {
    await api.server.close();
  });

  const remaining = async (): Promise<number> => {
    const { body } = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id });
    return body.balance.remaining;
  };

  it("lock: releasing a refund's hold leaves the other holds as they were", async () => {
    const before = await remaining();
    const refund = await api.post("/v1/balances.track", {
      customer_id: ids.customer_id,
      feature_id: ids.metered_feature_id,
      value: -5,
      lock: { lock_id: "refund-hold", enabled: true },
    });
    expect(refund.status).toBe(200);
    const held = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: ids.metered_feature_id, required_balance: 3, lock: { lock_id: "spend-hold", enabled: true } });
    expect(held.body.allowed).toBe(true);
    await api.post("/v1/balances.finalize", { lock_id: "refund-hold", action: "release" });
    expect(await remaining()).toBe(before - 3);
    await api.post("/v1/balances.finalize", { lock_id: "spend-hold", action: "release" });
    expect(await remaining()).toBe(before);
  });
});
