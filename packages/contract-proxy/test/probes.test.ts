// The contract-test kit's HTTP probes through the proxy: the proxy answers what it cannot parse
// itself, in the API's shape, and forwards only requests it can read (a body over the limit, a
// stalled body), whose refusal then comes back as documented.
import { describe, expect, it } from "vitest";
import { listChecks, runContractTests, type Service } from "@api-contracts/contract-tests";
import { startMockServer } from "@api-contracts/mock-server";
import { defaultFixtures, startReferenceServer } from "@api-contracts/reference-server";
import { startContractProxy } from "../src/index.js";

/** Request deadlines short enough for the kit's stalled-body probe, which waits --timeout for the 408. */
const DEADLINE_MS = 1_000;
const upstreams = {
  mock: (service: Service) => startMockServer({ service, requestTimeout: DEADLINE_MS }),
  reference: (service: Service) => startReferenceServer({ service, limits: { requestTimeoutMs: DEADLINE_MS, headersTimeoutMs: DEADLINE_MS } }),
};

describe.each(["entitlements", "webdata"] as const)("%s: HTTP probes through the proxy", (service) => {
  const forwardable = listChecks(service, "http").filter((check) => /http-(body-over-limit|stalled-body)$/.test(check.name)).length;

  for (const [name, start] of Object.entries(upstreams)) {
    for (const strict of [false, true]) {
      it(`in front of the ${name}${strict ? ", strict" : ""}: every probe passes, and what the proxy cannot parse never becomes an exchange`, async () => {
        const upstream = await start(service);
        const proxy = await startContractProxy({ service, upstream: upstream.url, strict, requestTimeout: DEADLINE_MS, headersTimeout: DEADLINE_MS });
        try {
          const report = await runContractTests({ service, baseUrl: proxy.url, apiKey: defaultFixtures.api_keys[service], level: "http" });
          const failed = Object.values(report.operations).flatMap((group) => group.checks.filter((check) => !check.passed).map((check) => `${check.operation}/${check.check}: ${check.reason}`));
          // Neither failures nor warnings: the proxy answers what it cannot parse in the API's shape, in time.
          expect(failed).toEqual([]);
          expect(report.passed).toBe(listChecks(service, "http").length);
          // The kit's preflight asks the target twice (without and with the key); its probes check the
          // target is still there with bare connections, which are no exchanges.
          expect(proxy.counts.exchanges).toBe(forwardable + 2);
        } finally {
          await proxy.close();
          await upstream.close();
        }
      });
    }
  }
});
