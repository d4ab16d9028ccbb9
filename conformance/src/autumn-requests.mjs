// The fixed list of raw requests an Autumn run sends, in order. The bodies of the spec package's
// judged entitlements requests come first (each labelled with the verdict its source predicts),
// then our own: the seeded features, an unknown customer and feature, bodies the contract refuses,
// a body that is not JSON, the credential forms, the response versions, a lock released and one
// confirmed, and a track followed by a check. Ids are the ones the run seeds (AUTUMN_SEED).
import { judgedRequests } from "./exchanges.mjs";

/** What the run seeds through Autumn's API before the list is sent. */
export const AUTUMN_SEED = {
  // The customer the judged requests name.
  customerId: "cus_2w5dzidzFD1cESxOGnn9frVuVcm",
  // The test organisation Autumn's setup-test script creates, and features it gives it.
  organisationSlug: "unit-test-org",
  meteredFeatureId: "messages",
  meteredBalance: 1000,
  booleanFeatureId: "dashboard",
  unlimitedFeatureId: "words",
  deniedFeatureId: "admin_rights",
  unknownCustomerId: "cus_conformance_never_created",
};

const ROUTES = {
  checkAccess: "/v1/balances.check",
  trackUsage: "/v1/balances.track",
  finalizeLock: "/v1/balances.finalize",
  checkAccessLegacy: "/v1/check",
  trackUsageLegacy: "/v1/track",
};

export function autumnRequests(judged = judgedRequests("entitlements"), seed = AUTUMN_SEED) {
  const call = (operation, rest) => ({ operation, method: "POST", path: ROUTES[operation], auth: "bearer", ...rest });
  const check = (rest) => call("checkAccess", rest);
  const track = (rest) => call("trackUsage", rest);
  const finalize = (rest) => call("finalizeLock", rest);
  const customer = seed.customerId;
  const metered = { customer_id: customer, feature_id: seed.meteredFeatureId };
  return [
    ...judged,

    check({ body: metered, note: "the seeded metered feature" }),
    check({ body: { customer_id: customer, feature_id: seed.booleanFeatureId }, note: "the seeded boolean feature" }),
    check({ body: { customer_id: customer, feature_id: seed.unlimitedFeatureId, required_balance: 1000000 }, note: "the seeded unlimited feature, a large requirement" }),
    check({ body: { customer_id: customer, feature_id: seed.deniedFeatureId }, note: "a boolean feature the customer was not given" }),
    check({ body: { ...metered, required_balance: 1000000 }, note: "more than the balance" }),
    check({ body: { customer_id: customer, feature_id: seed.deniedFeatureId, with_preview: true }, note: "a denied check with with_preview" }),
    check({ body: { ...metered, required_balance: 1, send_event: true }, note: "send_event deducts one unit" }),
    check({ body: { customer_id: seed.unknownCustomerId, feature_id: seed.meteredFeatureId }, note: "a customer the server does not know" }),
    check({ body: { customer_id: customer, feature_id: "no_such_feature" }, note: "a feature the server does not know" }),
    check({ body: { feature_id: seed.meteredFeatureId }, note: "customer_id missing" }),
    check({ body: { customer_id: 42, feature_id: seed.meteredFeatureId }, note: "customer_id of the wrong type" }),
    check({ body: { ...metered, required_balance: "5" }, note: "required_balance as a string" }),
    check({ raw: "{bad", note: "a body that is not JSON" }),
    check({ auth: "none", body: metered, note: "no credential" }),
    check({ auth: "basic", body: metered, note: "a Basic instead of a Bearer credential" }),
    check({ headers: { "x-api-version": "2.3.0" }, body: metered, note: "x-api-version 2.3.0 (the release's latest)" }),
    check({ headers: { "x-api-version": "2.4.0" }, body: metered, note: "x-api-version 2.4.0 (the contract's example)" }),
    check({ headers: { "x-api-version": "2.2.0" }, body: metered, note: "x-api-version 2.2.0" }),
    check({ headers: { "x-api-version": "1.2.0" }, body: metered, note: "x-api-version 1.2.0" }),
    check({ headers: { "x-api-version": "0.2.0" }, body: metered, note: "x-api-version 0.2.0" }),
    check({ headers: { "x-api-version": "9.0.0" }, body: metered, note: "x-api-version of an unknown major version" }),
    check({ headers: { "x-api-version": "latest" }, body: metered, note: "a malformed x-api-version" }),

    check({ body: { ...metered, required_balance: 3, lock: { enabled: true, lock_id: "lock_conformance_release" } }, note: "hold 3 units under a lock (released below)" }),
    check({ body: { ...metered, required_balance: 3, lock: { enabled: true, lock_id: "lock_conformance_release" } }, note: "the same lock id again while it is held" }),
    finalize({ body: { lock_id: "lock_conformance_release", action: "release" }, note: "release the held lock" }),
    finalize({ body: { lock_id: "lock_conformance_release", action: "release" }, note: "release the same lock again" }),
    check({ body: metered, note: "the balance after the release" }),
    check({ body: { ...metered, required_balance: 3, lock: { enabled: true, lock_id: "lock_conformance_confirm" } }, note: "hold 3 units under a lock (confirmed below)" }),
    finalize({ body: { lock_id: "lock_conformance_confirm", action: "confirm", override_value: 2 }, note: "confirm the lock, 2 units instead of 3" }),
    finalize({ body: { lock_id: "lock_conformance_confirm", action: "release" }, note: "release the lock already confirmed" }),
    check({ body: metered, note: "the balance after the confirm" }),
    check({ body: { customer_id: customer, feature_id: seed.booleanFeatureId, lock: { enabled: true, lock_id: "lock_conformance_boolean" } }, note: "a lock on a boolean feature" }),
    finalize({ body: { lock_id: "lock_conformance_never_placed", action: "release" }, note: "a lock the server does not hold" }),
    finalize({ body: { lock_id: "lock_conformance_never_placed", action: "maybe" }, note: "action outside its enum" }),
    finalize({ body: { action: "release" }, note: "lock_id missing" }),
    finalize({ raw: "{bad", note: "a body that is not JSON" }),
    finalize({ auth: "none", body: { lock_id: "lock_conformance_never_placed", action: "release" }, note: "no credential" }),

    track({ body: { ...metered, value: 2 }, note: "track 2 units (checked below)" }),
    check({ body: metered, note: "the balance after the track" }),
    track({ body: { ...metered, value: -2 }, note: "a negative value (gives units back)" }),
    track({ body: { customer_id: customer, event_name: "chat_message", value: 1 }, note: "an event name no feature listens to" }),
    track({ body: { customer_id: seed.unknownCustomerId, feature_id: seed.meteredFeatureId }, note: "a customer the server does not know" }),
    track({ body: { customer_id: customer, feature_id: "no_such_feature" }, note: "a feature the server does not know" }),
    track({ body: { customer_id: customer, feature_id: seed.booleanFeatureId }, note: "track a boolean feature" }),
    track({ body: { ...metered, value: "2" }, note: "value as a string" }),
    track({ body: { feature_id: seed.meteredFeatureId }, note: "customer_id missing" }),
    track({ raw: "{bad", note: "a body that is not JSON" }),
    track({ auth: "none", body: metered, note: "no credential" }),
    track({ auth: "basic", body: metered, note: "a Basic instead of a Bearer credential" }),
    track({ headers: { "x-api-version": "1.2.0" }, body: { ...metered, value: 1 }, note: "x-api-version 1.2.0" }),

    call("checkAccessLegacy", { body: metered, note: "the legacy check of the metered feature" }),
    call("checkAccessLegacy", { body: { feature_id: seed.meteredFeatureId }, note: "customer_id missing" }),
    call("checkAccessLegacy", { auth: "none", body: metered, note: "no credential" }),
    call("trackUsageLegacy", { body: { ...metered, value: 1 }, note: "the legacy track of one unit" }),
    call("trackUsageLegacy", { body: { customer_id: customer }, note: "neither feature_id nor event_name" }),
    call("trackUsageLegacy", { auth: "none", body: metered, note: "no credential" }),
  ];
}
