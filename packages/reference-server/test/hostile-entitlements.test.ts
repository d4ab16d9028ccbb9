import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultFixtures, MAX_REPORTED_ERRORS } from "../src/index.js";
import { coreModule, manualClock, rawPost, rawRequest, runIsolated, sourceModule, startApi, type ApiUnderTest, type RawAnswer, validatorsOf } from "./helpers.js";

const ids = defaultFixtures.entitlements;
const CHECK = "/v1/balances.check";
const TRACK = "/v1/balances.track";
const FINALIZE = "/v1/balances.finalize";
const KEY = defaultFixtures.api_keys.entitlements;
const spec = validatorsOf("entitlements");

/** An answer in the Error shape with this status and code, small, and valid wherever the contract documents it. */
function expectError(answer: { status: number; body: any; text?: string }, status: number, code: string, operation = CHECK): void {
  expect(answer.status).toBe(status);
  expect(Object.keys(answer.body).sort()).toEqual(["code", "env", "message"]);
  expect(answer.body).toMatchObject({ code, env: "sandbox", message: expect.any(String) });
  expect((answer.text ?? JSON.stringify(answer.body)).length).toBeLessThan(64 * 1024);
  const documented = spec.response("POST", operation, status);
  expect(documented, `${operation} documents ${status}`).not.toBeNull();
  expect(documented!(answer.body), JSON.stringify(documented!.errors)).toBe(true);
}

const post = (target: string, body: string): string => rawPost(KEY, target, body);

describe("entitlements reference server under hostile input", () => {
  const clock = manualClock();
  let api: ApiUnderTest;
  let tight: ApiUnderTest;
  beforeAll(async () => {
    api = await startApi("entitlements", { now: clock.now });
    tight = await startApi("entitlements", { now: clock.now, limits: { maxLocks: 3, maxIdempotencyKeys: 2, idempotencyKeyTtlMs: 60_000, requestTimeoutMs: 400, headersTimeoutMs: 300 } });
  });
  afterAll(async () => {
    await Promise.all([api.server.close(), tight.server.close()]);
  });

  it("error amplification: a body with every declared member of the wrong type is answered with 20 problems in under 64 KB", async () => {
    const wrong = { entity_id: 1, required_balance: "1", required_quantity: "1", properties: 1, send_event: 1, with_preview: 1, product_id: 1, skip_event: 1, lock: { lock_id: 1, enabled: 1, expires_at: "1", overage_behavior: 1, hashed_key: 1 }, customer_data: { name: 1, email: 1, fingerprint: 1, metadata: 1, stripe_id: 1, create_in_stripe: 1, auto_enable_plan_id: 1, send_email_receipts: 1, currency: 1, billing_controls: 1, config: 1, processors: 1, internal_options: 1 }, entity_data: { feature_id: 1, name: 1, billing_controls: 1 } };
    const answer = await api.post(CHECK, { customer_id: 1, feature_id: 1, ...wrong });
    expectError(answer, 400, "invalid_inputs");
    expect(answer.body.message.split("; ").length).toBe(MAX_REPORTED_ERRORS);
  });

  it("members the service does not declare are ignored, as live: 80 000 of them, or one with a 500 000-character name", async () => {
    const members = Array.from({ length: 80_000 }, (_, i) => `"m${i}":1`).join(",");
    const many = await rawRequest(api.server.url, post(CHECK, `{"customer_id":"${ids.customer_id}","feature_id":"messages",${members}}`));
    expect(many.status).toBe(200);
    const long = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: "messages", ["x".repeat(500_000)]: 1 });
    expect(long.status).toBe(200);
  });

  it("error amplification: a 500 000-character unknown customer id is cut short in the answer", async () => {
    const answer = await api.post(CHECK, { customer_id: "x".repeat(500_000), feature_id: "messages" });
    expectError(answer, 404, "customer_not_found");
    expect(answer.body.message.length).toBeLessThan(2000);
  });

  it("linear-time parsing: a 1 MB 'Bearer<spaces>a b' header is refused by a one-pass parser (a backtracking pattern would take about half an hour)", async () => {
    // In a child process, so that a regression shows as a failed test rather than a frozen run.
    const stdout = await runIsolated(`import { contractOf } from ${coreModule};
      const contract = contractOf("entitlements");
      const decision = contract.decide({ method: "POST", target: "/v1/balances.check", headers: { authorization: "Bearer" + " ".repeat(1 << 20) + "a b" } }, { acceptsKey: (key) => key === "k" });
      process.stdout.write(JSON.stringify(contract.refusalOf(decision)));`);
    // Autumn reads `Bearer ` and the trimmed rest, "a b", a key without am_sk: refused for its prefix.
    expect(JSON.parse(stdout)).toMatchObject({ status: 401, body: { code: "invalid_request" } });
  }, 40_000);

  it("linear-time parsing: a 16 KB spaced-out Authorization header is a documented 401", async () => {
    const answer = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: "messages" }, { auth: `Bearer${" ".repeat(16_000)}a b` });
    expectError(answer, 401, "invalid_request");
  });

  it("amounts: a negative required_balance is allowed to a customer with a balance, and with send_event gives the units back, as live", async () => {
    const base = { customer_id: ids.customer_id, feature_id: ids.metered_feature_id };
    await api.post(TRACK, { ...base, value: 5 });
    const before = (await api.post(CHECK, base)).body.balance.usage;
    const answer = await api.post(CHECK, { ...base, required_balance: -3, send_event: true });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ allowed: true, required_balance: -3 });
    expect(answer.body.balance.usage).toBe(before - 3);
    const legacyName = await api.post(CHECK, { ...base, required_quantity: 2 });
    expect(legacyName.body.required_balance).toBe(2);
  });

  it("amounts: a number JSON cannot hold (1e400) is 400 naming the member", async () => {
    const answer = await rawRequest(api.server.url, post(CHECK, `{"customer_id":"${ids.customer_id}","feature_id":"messages","required_balance":1e400}`));
    expectError(answer, 400, "invalid_inputs");
    expect(answer.body.message).toContain("required_balance");
  });

  it("amounts: a negative override_value commits a credit, as live; a negative tracked value is a refund", async () => {
    const base = { customer_id: ids.customer_id, feature_id: "messages" };
    await api.post(TRACK, { ...base, value: 5 });
    const beforeLock = (await api.post(CHECK, base)).body.balance.usage;
    expect((await api.post(CHECK, { ...base, required_balance: 2, lock: { lock_id: "neg-1", enabled: true } })).body.allowed).toBe(true);
    expect((await api.post(FINALIZE, { lock_id: "neg-1", action: "confirm", override_value: -3 })).status).toBe(200);
    expect((await api.post(CHECK, base)).body.balance.usage).toBe(beforeLock - 3);
    expectError(await api.post(FINALIZE, { lock_id: "neg-1", action: "release" }), 400, "invalid_request", FINALIZE);
    const before = (await api.post(CHECK, base)).body.balance.usage;
    const refunded = await api.post(TRACK, { ...base, value: -3 });
    expect(refunded.status).toBe(200);
    expect(refunded.body.balance.usage).toBe(before - 3);
  });

  it("amounts: huge tracked values and required balances are accepted and saturate at the largest double, never null", async () => {
    const base = { customer_id: ids.customer_id, feature_id: ids.unlimited_feature_id };
    for (let i = 0; i < 3; i++) {
      const tracked = await api.post(TRACK, { ...base, value: 1e308 });
      expect(tracked.status).toBe(200);
      expect(spec.response("POST", TRACK, 200)!(tracked.body)).toBe(true);
      if (i > 0) expect(tracked.body.balance.usage).toBe(Number.MAX_VALUE);
    }
    const checked = await api.post(CHECK, { ...base, required_balance: 1e308, send_event: true });
    expect(checked.status).toBe(200);
    expect(checked.body.balance.usage).toBe(Number.MAX_VALUE);
    const locked = await api.post(CHECK, { ...base, required_balance: 1e308, lock: { lock_id: "huge-1", enabled: true } });
    expect(locked.status).toBe(200);
    expect((await api.post(FINALIZE, { lock_id: "huge-1", action: "confirm", override_value: 1e308 })).status).toBe(200);
    const after = await api.post(CHECK, base);
    expect(after.body.balance.usage).toBe(Number.MAX_VALUE);
    for (const [answer, operation] of [[checked, CHECK], [locked, CHECK], [after, CHECK]] as const) {
      const documented = spec.response("POST", operation, 200)!;
      expect(documented(answer.body), JSON.stringify(documented.errors)).toBe(true);
    }
  });

  it("bounded state: live locks are capped (429 beyond the cap) and a lock that expires frees its place", async () => {
    const lock = (id: string, ttl: number) => tight.post(CHECK, { customer_id: ids.customer_id, feature_id: "messages", lock: { lock_id: id, enabled: true, expires_at: clock.now() + ttl } });
    for (const [id, ttl] of [["cap-1", 3000], ["cap-2", 1000], ["cap-3", 2000]] as const) expect((await lock(id, ttl)).body.allowed).toBe(true);
    expectError(await lock("cap-4", 1000), 429, "rate_limit_exceeded");
    clock.advance(1500);
    expect((await lock("cap-4", 1000)).body.allowed).toBe(true);
    expect((await tight.post(FINALIZE, { lock_id: "cap-2", action: "release" })).status).toBe(400);
    for (const id of ["cap-1", "cap-3", "cap-4"]) expect((await tight.post(FINALIZE, { lock_id: id, action: "release" })).status).toBe(200);
  });

  it("bounded state: locks expire in order of expires_at whatever order they were placed in, releasing exactly their units", async () => {
    const base = { customer_id: ids.customer_id, feature_id: "messages", entity_id: "seat_grace" };
    const remaining = async () => (await api.post(CHECK, base)).body.balance.remaining;
    const start = await remaining();
    const expiries = [7, 2, 9, 4, 1, 8, 3, 6, 5];
    for (const [i, minutes] of expiries.entries()) {
      await api.post(CHECK, { ...base, required_balance: minutes, lock: { lock_id: `order-${i}`, enabled: true, expires_at: clock.now() + minutes * 60_000 - 30_000 } });
    }
    await api.post(FINALIZE, { lock_id: "order-2", action: "release" });
    const held = (minute: number) => expiries.filter((m, i) => m > minute && i !== 2).reduce((a, b) => a + b, 0);
    expect(await remaining()).toBe(start - held(0));
    for (let minute = 1; minute <= 9; minute++) {
      clock.advance(60_000);
      expect(await remaining()).toBe(start - held(minute));
    }
  });

  it("bounded state: a remembered idempotency key costs a few bytes whatever its length, and a long key is still recognised", async () => {
    // In a child process with a collectable heap, so that what the store keeps is all that is measured.
    const stdout = await runIsolated(`import { setFlagsFromString } from "node:v8";
      import { runInNewContext } from "node:vm";
      import { EntitlementsStore } from ${sourceModule("entitlements/store.ts")};
      import { defaultFixtures } from ${sourceModule("fixtures.ts")};
      setFlagsFromString("--expose-gc");
      const gc = runInNewContext("gc");
      const store = new EntitlementsStore(defaultFixtures.world.entitlements, Date.now, { maxLocks: 10, maxIdempotencyKeys: 1000, idempotencyKeyTtlMs: 3_600_000 });
      const track = (key) => store.track({ customer_id: ${JSON.stringify(ids.customer_id)}, feature_id: ${JSON.stringify(ids.unlimited_feature_id)}, value: 0, idempotency_key: key });
      gc();
      const before = process.memoryUsage().heapUsed;
      for (let i = 0; i < 64; i++) track(String(i).padEnd(1 << 20, "k"));
      gc();
      const grown = process.memoryUsage().heapUsed - before;
      let refused = false;
      try { track("0".padEnd(1 << 20, "k")); } catch (err) { refused = err.code === "duplicate_idempotency_key"; }
      process.stdout.write(JSON.stringify({ grown, refused }));`);
    const { grown, refused } = JSON.parse(stdout);
    expect(refused).toBe(true);
    // 64 keys of 1 MiB each: kept whole they would hold 64 MiB.
    expect(grown).toBeLessThan(4 * 1024 * 1024);
  }, 40_000);

  it("bounded state: idempotency keys expire after their time and the oldest is forgotten beyond the cap", async () => {
    const track = (key: string) => tight.post(TRACK, { customer_id: ids.customer_id, feature_id: "messages", value: 0, idempotency_key: key });
    expect((await track("idem-a")).status).toBe(200);
    expectError(await track("idem-a"), 409, "duplicate_idempotency_key", TRACK);
    clock.advance(60_001);
    expect((await track("idem-a")).status).toBe(200);
    expect((await track("idem-b")).status).toBe(200);
    expect((await track("idem-c")).status).toBe(200);
    expect((await track("idem-a")).status).toBe(200);
    expectError(await track("idem-c"), 409, "duplicate_idempotency_key", TRACK);
  });

  it("sizes before reading: a declared Content-Length over the limit is 413 payload_too_large at once, on any path, without the body", async () => {
    for (const target of [CHECK, "/v1/no-such-operation"]) {
      const answer = await rawRequest(api.server.url, `POST ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n{`);
      expectError(answer, 413, "payload_too_large");
      expect(answer.headers.connection).toBe("close");
    }
  });

  it("timeouts: a body that trickles in past the request timeout is answered 408 request_timeout", async () => {
    const answer = await rawRequest(tight.server.url, `POST ${CHECK} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"cus`, (socket) => {
      const drip = setInterval(() => (socket.writable ? socket.write(" ") : clearInterval(drip)), 50);
      socket.on("close", () => clearInterval(drip));
    });
    expectError(answer, 408, "request_timeout");
  });

  it("timeouts: headers that never end are answered 408 request_timeout", async () => {
    const answer = await rawRequest(tight.server.url, `POST ${CHECK} HTTP/1.1\r\nHost: x\r\n`);
    expectError(answer, 408, "request_timeout");
  });

  it("framework answers: bad chunked encoding, conflicting Content-Length and Transfer-Encoding, a 20 KB URL and a 20 KB header are 400 invalid_request", async () => {
    const answers: RawAnswer[] = await Promise.all([
      rawRequest(api.server.url, `POST ${CHECK} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`),
      rawRequest(api.server.url, `POST ${CHECK} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n`),
      rawRequest(api.server.url, `POST ${CHECK}?${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
      rawRequest(api.server.url, `POST ${CHECK} HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\nConnection: close\r\n\r\n`),
    ]);
    for (const answer of answers) expectError(answer, 400, "invalid_request");
  });

  it("an undecodable path is the contract's 404 invalid_request: no operation serves it", async () => {
    const answer = await rawRequest(api.server.url, `POST /v1/balances.check%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ code: "invalid_request", env: "sandbox" });
  });

  it("prototype keys: __proto__, constructor and prototype as ids, lock ids, keys and free-form properties change nothing they should not", async () => {
    const properties = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "prototype": 1}');
    for (const id of ["__proto__", "constructor", "prototype"]) {
      expectError(await api.post(CHECK, { customer_id: id, feature_id: "messages" }), 404, "customer_not_found");
      expectError(await api.post(CHECK, { customer_id: ids.customer_id, feature_id: id }), 404, "feature_not_found");
      expectError(await api.post(CHECK, { customer_id: ids.customer_id, feature_id: "messages", entity_id: id }), 404, "entity_not_found");
      expectError(await api.post(FINALIZE, { lock_id: id, action: "release" }), 400, "invalid_request", FINALIZE);
      const locked = await api.post(CHECK, { customer_id: ids.customer_id, feature_id: "messages", properties, lock: { lock_id: id, enabled: true } });
      expect(locked.body.allowed).toBe(true);
      expect((await api.post(FINALIZE, { lock_id: id, action: "release", properties })).status).toBe(200);
      expect((await api.post(TRACK, { customer_id: ids.customer_id, feature_id: "messages", value: 0, idempotency_key: id, properties })).status).toBe(200);
      expectError(await api.post(TRACK, { customer_id: ids.customer_id, feature_id: "messages", value: 0, idempotency_key: id }), 409, "duplicate_idempotency_key", TRACK);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await api.post(CHECK, { customer_id: ids.customer_id, feature_id: "messages" })).status).toBe(200);
  });
});
