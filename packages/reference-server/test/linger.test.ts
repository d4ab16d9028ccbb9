// A body over the limit gets the documented 413 whichever ordinary client sends it, and a client that
// never stops sending is still cut off: the connection lingers after the answer, within bounds.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { availableClients, postOversized, sendEndlessBody } from "@api-contracts/dev-tools/testing/edge-clients";
import { defaultFixtures, startReferenceServer, type ReferenceServer } from "../src/index.js";

const clients = availableClients();
const cases = {
  webdata: { path: "/v2/crawl", auth: `Bearer ${defaultFixtures.api_keys.webdata}`, error: { success: false, error: "Request body is too large" } },
  entitlements: { path: "/v1/balances.check", auth: `Bearer ${defaultFixtures.api_keys.entitlements}`, error: { code: "payload_too_large" } },
} as const;

describe.each(["webdata", "entitlements"] as const)("%s reference server: an oversized body", (service) => {
  const { path, auth, error } = cases[service];
  const lingerBytes = 24 * 1024 * 1024;
  let server: ReferenceServer;
  beforeAll(async () => {
    // A deadline far beyond the client's patience: a cut-off can only come from the byte bound.
    server = await startReferenceServer({ service, limits: { bodyLimitBytes: 1024 * 1024, lingerBytes, lingerMs: 120_000 } });
  });
  afterAll(() => server.close());

  for (const client of clients) {
    for (const megabytes of [2, 20]) {
      it(`sent by ${client} (${megabytes} MB) gets the documented 413, not a connection error`, async () => {
        const outcome = await postOversized(`${server.url}${path}`, megabytes * 1024 * 1024, client, { authorization: auth });
        expect(outcome.status, outcome.error).toBe(413);
        expect(outcome.body).toMatchObject(error);
      });
    }
  }

  it("sent forever is cut off once the lingering bound is read", async () => {
    const outcome = await sendEndlessBody(`${server.url}${path}`, 10 * 1024 * 1024 * 1024, { authorization: auth }, 20_000);
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(outcome.cutOff).toBe(true);
    expect(outcome.sentBytes).toBeGreaterThan(lingerBytes);
  });
});
