// No false alarm: generated requests against this server at behaviour level, for three seeds.
import { describe, expect, it } from "vitest";
import { runContractTests } from "../../src/index.js";
import { defaultFixtures, startReferenceServer } from "@api-contracts/reference-server";
import { KIT_RUN_TIMEOUT_MS, KIT_TARGET_LIMITS, KIT_WEBHOOK_SECRET } from "./helpers.js";

const SEEDS = [1, 20261123, 987654321];

// Each run has its own server on port 0, so runs go side by side.
describe.concurrent.each(["entitlements", "webdata"] as const)("%s reference implementation under generated requests", (service) => {
  it.each(SEEDS)(
    "no false alarm: --generate 200 with seed %i passes at behaviour level",
    async (seed) => {
      const server = await startReferenceServer({ service, limits: KIT_TARGET_LIMITS, ...(service === "webdata" ? { webhookSecret: KIT_WEBHOOK_SECRET } : {}) });
      try {
        const report = await runContractTests({ service, baseUrl: server.url, fixtures: defaultFixtures, level: "behavior", generate: 200, seed, webhookSecret: KIT_WEBHOOK_SECRET });
        const checks = Object.values(report.operations).flatMap((group) => group.checks);
        expect(checks.filter((c) => !c.check.startsWith("generated-") && !c.passed).map((c) => `${c.operation}/${c.check}: ${c.reason}`)).toEqual([]);
        const reasons = checks.flatMap((c) => (c.passed ? [] : (c.failures?.map((f) => `${c.operation}/${c.check}: ${f.reason}`) ?? [`${c.operation}/${c.check}: ${c.reason}`])));
        expect(reasons).toEqual([]);
        expect(report.generation).toMatchObject({ examples: 200, seed, stopped: false });
      } finally {
        await server.close();
      }
    },
    KIT_RUN_TIMEOUT_MS,
  );
});
