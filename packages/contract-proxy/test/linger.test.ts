// A body over the limit, refused by the proxy itself (--strict) or early by the upstream, reaches whichever ordinary client sends
// it as the documented 413, and a client that never stops sending is cut off within the lingering bound.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { availableClients, postOversized, sendEndlessBody } from "@api-contracts/dev-tools/testing/edge-clients";
import { startMockServer } from "@api-contracts/mock-server";
import { startContractProxy, type ContractProxy } from "../src/index.js";

const clients = availableClients();
const auth = "Bearer fc-0123456789abcdef0123456789abcdef";
const lingerBytes = 24 * 1024 * 1024;
// Deadlines far beyond the client's patience: a cut-off can only come from the byte bound.
const linger = { maxBytes: lingerBytes, maxMs: 120_000 };

// Strict, the proxy refuses the body itself; otherwise it streams it on and passes on the mock's early 413.
describe.each([true, false])("proxy (strict: %s) in front of the web data mock: an oversized body", (strict) => {
  let mock: Awaited<ReturnType<typeof startMockServer>>;
  let proxy: ContractProxy;
  beforeAll(async () => {
    // A limit of 1 MiB, whatever the mock's default: both sizes sent are over it.
    mock = await startMockServer({ service: "webdata", linger, bodyLimit: 1024 * 1024 });
    proxy = await startContractProxy({ service: "webdata", upstream: mock.url, strict, linger });
  });
  afterAll(async () => {
    await proxy.close();
    await mock.close();
  });

  for (const client of clients) {
    for (const megabytes of [2, 20]) {
      it(`sent by ${client} (${megabytes} MB) gets the documented 413, not a connection error`, async () => {
        const outcome = await postOversized(`${proxy.url}/v2/crawl`, megabytes * 1024 * 1024, client, { authorization: auth });
        expect(outcome.status, outcome.error).toBe(413);
        expect(outcome.body).toMatchObject({ success: false, error: "Request body is too large" });
      });
    }
  }

  it("sent forever is cut off", async () => {
    const outcome = await sendEndlessBody(`${proxy.url}/v2/crawl`, 10 * 1024 * 1024 * 1024, { authorization: auth }, 20_000);
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(outcome.cutOff).toBe(true);
  });
});
