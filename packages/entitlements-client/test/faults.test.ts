// The client's resilience options against the mock with faults injected: each promise (timeout,
// retry, fail-open, never faking track and finalize) is shown kept with the option on and broken
// with it off, on the documented answers the mock serves (503 with Retry-After: 1).
import { afterEach, describe, expect, it } from "vitest";
import { parseFaults, type FaultRule } from "@api-contracts/contract-core";
import { seedFor, type FaultEvent } from "@api-contracts/contract-core/server";
import { startMockServer, type RunningServer } from "@api-contracts/mock-server";
import { createEntitlementsClient, TimeoutError, type EntitlementsClientOptions } from "../src/index.js";
import { failOpen, retry } from "../src/middleware.js";

const check = { body: { customer_id: "cus_1", feature_id: "messages", entity_id: "seat_1" } };
const track = { body: { customer_id: "cus_1", feature_id: "messages" } };
const finalize = { body: { lock_id: "lock_1", action: "confirm" as const } };
/** The mock's own deadline for a request nobody answers: what a hang ends at when the client waits. */
const SERVER_DEADLINE_MS = 1500;
const TIMEOUT_MS = 300;

let mock: RunningServer | undefined;
let events: FaultEvent[] = [];
afterEach(async () => {
  await mock?.close();
  mock = undefined;
  events = [];
});

/** A mock with these rules; `pattern` picks the seed (see seedFor), e.g. `[true, false]`: the first check faulted, the second not. */
async function mockWith(rules: FaultRule[], pattern?: boolean[]): Promise<string> {
  const checked = parseFaults({ rules });
  const seed = pattern ? seedFor(checked, "entitlements", "checkAccess", pattern) : 0;
  mock = await startMockServer({ service: "entitlements", requestTimeout: SERVER_DEADLINE_MS, faults: { rules: checked, seed, onFault: (event) => events.push(event) } });
  return mock.url;
}

const client = (baseUrl: string, options: Partial<EntitlementsClientOptions> = {}) => createEntitlementsClient({ apiKey: "am_sk_test_0123456789", baseUrl, ...options });

/** Milliseconds a promise took to settle, and how it settled. */
async function timed<T>(work: Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const started = Date.now();
  try {
    const value = await work;
    return { ms: Date.now() - started, value };
  } catch (error) {
    return { ms: Date.now() - started, error };
  }
}

describe("timeoutMs against a mock that hangs", () => {
  it("on: the call fails with a TimeoutError at timeoutMs, long before the server gives up", async () => {
    const url = await mockWith([{ operation: "checkAccess", fault: "hang" }]);
    const started = Date.now();
    await expect(client(url, { timeoutMs: TIMEOUT_MS }).POST("/v1/balances.check", check)).rejects.toBeInstanceOf(TimeoutError);
    const ms = Date.now() - started;
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(ms).toBeLessThan(SERVER_DEADLINE_MS);
  });

  it("off: the call waits until the server closes the connection at its own deadline", async () => {
    const url = await mockWith([{ operation: "checkAccess", fault: "hang" }]);
    const outcome = await timed(client(url).POST("/v1/balances.check", check));
    expect(outcome.error).toBeInstanceOf(TypeError);
    expect(outcome.ms).toBeGreaterThanOrEqual(SERVER_DEADLINE_MS - 50);
  });
});

describe("retry against a mock that resets or is briefly unavailable", () => {
  const fast = { retries: 2, baseDelayMs: 1, maxDelayMs: 5000 };

  it("on: a check whose first attempt is reset is answered by the second", async () => {
    const url = await mockWith([{ operation: "checkAccess", probability: 0.5, fault: "reset" }], [true, false]);
    const { data, response } = await client(url, { retry: retry(fast) }).POST("/v1/balances.check", check);
    expect(response.status).toBe(200);
    expect(data?.customer_id).toBeDefined();
    expect(events.map((e) => e.fault)).toEqual(["reset"]);
  });

  it("off: the reset reaches the caller", async () => {
    const url = await mockWith([{ operation: "checkAccess", probability: 0.5, fault: "reset" }], [true, false]);
    await expect(client(url).POST("/v1/balances.check", check)).rejects.toBeInstanceOf(TypeError);
  });

  it("on: after a 503 with Retry-After: 1 the check is sent again no sooner than a second later, and answered", async () => {
    const url = await mockWith([{ operation: "checkAccess", probability: 0.5, status: 503 }], [true, false]);
    const waits: number[] = [];
    const started = Date.now();
    const { response } = await client(url, { retry: retry({ ...fast, onRetry: (event) => waits.push(event.delayMs) }) }).POST("/v1/balances.check", check);
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(waits).toEqual([1000]);
    expect(events.map((e) => e.status)).toEqual([503]);
  });

  it("off: the 503 reaches the caller, in the documented shape, with its Retry-After", async () => {
    const url = await mockWith([{ operation: "checkAccess", probability: 0.5, status: 503 }], [true, false]);
    const { error, response } = await client(url).POST("/v1/balances.check", check);
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(error).toMatchObject({ code: "service_unavailable" });
  });
});

describe("failOpen against a mock that is down", () => {
  const cases: Array<[string, FaultRule, string, Partial<EntitlementsClientOptions>]> = [
    ["503", { operation: "checkAccess", status: 503 }, "status 503", {}],
    ["a reset", { operation: "checkAccess", fault: "reset" }, "network error", {}],
    ["a hang", { operation: "checkAccess", fault: "hang" }, "timeout", { timeoutMs: TIMEOUT_MS }],
    ["a body that trickles in past timeoutMs", { operation: "checkAccess", fault: "slow-body" }, "timeout", { timeoutMs: TIMEOUT_MS }],
  ];

  it.each(cases)("on: a check meeting %s is answered locally, allowed, and marked", async (_, rule, cause, options) => {
    const url = await mockWith([rule]);
    const { data, error, response } = await client(url, { failOpen: failOpen(), ...options }).POST("/v1/balances.check", check);
    expect(error).toBeUndefined();
    expect(response.status).toBe(202);
    expect(response.headers.get("x-fail-open")).toBe(cause);
    expect(data).toEqual({ allowed: true, customer_id: "cus_1", entity_id: "seat_1", balance: null, flag: null });
  });

  it.each(cases)("off: a check meeting %s fails", async (_, rule, _cause, options) => {
    const url = await mockWith([rule]);
    const outcome = await timed(client(url, options).POST("/v1/balances.check", check));
    if (outcome.error === undefined) expect(outcome.value!.response.status).toBe(503);
    else expect(outcome.error).toBeInstanceOf(rule.fault === "reset" ? TypeError : TimeoutError);
  });

  it("never fakes a track or a finalize: their 503 reaches the caller, and their reset too", async () => {
    const url = await mockWith([
      { operation: ["trackUsage", "finalizeLock"], probability: 0.5, status: 503 },
      { operation: ["trackUsage", "finalizeLock"], fault: "reset" },
    ]);
    const open = client(url, { failOpen: failOpen(), retry: retry({ retries: 2, baseDelayMs: 1, maxDelayMs: 5000 }) });
    const outcomes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const calls: Array<() => Promise<{ response: Response }>> = [() => open.POST("/v1/balances.track", track), () => open.POST("/v1/balances.finalize", finalize)];
      for (const call of calls) {
        const outcome = await timed(call());
        outcomes.push(outcome.error !== undefined ? (outcome.error instanceof TypeError ? "network error" : String(outcome.error)) : `${outcome.value!.response.status} ${outcome.value!.response.headers.get("x-fail-open") ?? ""}`.trim());
      }
    }
    expect(new Set(outcomes)).toEqual(new Set(["503", "network error"]));
    // Neither a track without an idempotency key nor a finalize is sent twice.
    expect(events).toHaveLength(outcomes.length);
  });
});
