// A body over the limit gets the documented 413 whichever ordinary client sends it, and a client that
// never stops sending is still cut off: the connection lingers after the answer, within bounds.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { availableClients, postOversized, sendEndlessBody } from "@api-contracts/dev-tools/testing/edge-clients";
import { startMockServer, type RunningServer } from "../src/index.js";

const clients = availableClients();

const cases = {
  webdata: { path: "/v2/crawl", auth: "Bearer fc-0123456789abcdef0123456789abcdef", error: { success: false, error: "Request body is too large" } },
  entitlements: { path: "/v1/balances.check", auth: "Bearer am_sk_test_0123456789", error: { code: "payload_too_large" } },
} as const;

describe.each(["webdata", "entitlements"] as const)("%s mock: an oversized body", (service) => {
  const { path, auth, error } = cases[service];
  let mock: RunningServer;
  const maxBytes = 24 * 1024 * 1024;
  beforeAll(async () => {
    // A deadline far beyond the client's patience: a cut-off can only come from the byte bound.
    mock = await startMockServer({ service, bodyLimit: 1024 * 1024, linger: { maxBytes, maxMs: 120_000 } });
  });
  afterAll(() => mock.close());

  for (const client of clients) {
    for (const megabytes of [2, 20]) {
      it(`sent by ${client} (${megabytes} MB) gets the documented 413, not a connection error`, async () => {
        const outcome = await postOversized(`${mock.url}${path}`, megabytes * 1024 * 1024, client, { authorization: auth });
        expect(outcome.status, outcome.error).toBe(413);
        expect(outcome.body).toMatchObject(error);
      });
    }
  }

  it("sent forever is cut off once the lingering bound is read", async () => {
    const outcome = await sendEndlessBody(`${mock.url}${path}`, 10 * 1024 * 1024 * 1024, { authorization: auth }, 20_000);
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(outcome.cutOff).toBe(true);
    expect(outcome.sentBytes).toBeGreaterThan(maxBytes);
  });
});
