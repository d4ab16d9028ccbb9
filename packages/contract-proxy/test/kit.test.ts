// The contract-test kit through the proxy, both with their default options: a correct upstream
// passes, and the proxy's coverage of the kit's traffic is the coverage the kit counts itself.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runContractTests, runFailed, type Report, type Service } from "@api-contracts/contract-tests";
import { startMockServer } from "@api-contracts/mock-server";
import { defaultFixtures, startReferenceServer } from "@api-contracts/reference-server";
import { startContractProxy } from "../src/index.js";

const require = createRequire(import.meta.url);
const SERVICES = ["entitlements", "webdata"] as const;
/** The kit's wait for one answer: short, so that the stalled-body probe (the proxy allows 30 s) costs little; it only warns. */
const KIT_TIMEOUT_MS = 1_500;
type Server = { url: string; close(): Promise<void> };
const mocks = {} as Record<Service, Server>;
const references = {} as Record<Service, Server>;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "proxy-kit-"));
  for (const service of SERVICES) {
    mocks[service] = await startMockServer({ service });
    references[service] = await startReferenceServer({ service });
  }
});
afterAll(async () => {
  for (const server of [...Object.values(mocks), ...Object.values(references)]) await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const failures = (report: Report) =>
  Object.values(report.operations).flatMap((group) => group.checks.filter((check) => !check.passed && check.severity === "failure").map((check) => `${check.operation}/${check.check}: ${check.reason}`));

describe.each(SERVICES)("%s: the kit through the proxy", (service) => {
  it("in front of the mock, schema level: no failure, and the proxy's coverage file is the kit's own coverage", async () => {
    const coverageFile = path.join(dir, `${service}-coverage.json`);
    const proxy = await startContractProxy({ service, upstream: mocks[service].url, coverage: coverageFile });
    let report: Report;
    try {
      report = await runContractTests({ service, baseUrl: proxy.url, apiKey: defaultFixtures.api_keys[service] });
    } finally {
      await proxy.close();
    }
    expect(failures(report)).toEqual([]);
    expect(runFailed(report)).toBe(false);
    const written = JSON.parse(readFileSync(coverageFile, "utf8"));
    const validate = new Ajv2020({ strict: true }).compile(JSON.parse(readFileSync(require.resolve("@api-contracts/contract-core/coverage.schema.json"), "utf8")));
    expect(validate(written), JSON.stringify(validate.errors)).toBe(true);
    expect(written).toEqual(report.coverage);
    expect(written.totals.exercised).toBe(written.totals.operations);
  });

  it("in front of the reference server, behavior level: no failure (a stalled body only warns, the proxy waits 30 s for it)", async () => {
    const proxy = await startContractProxy({ service, upstream: references[service].url });
    try {
      const report = await runContractTests({ service, baseUrl: proxy.url, fixtures: defaultFixtures, level: "behavior", timeoutMs: KIT_TIMEOUT_MS });
      expect(failures(report)).toEqual([]);
      expect(runFailed(report)).toBe(false);
      const warned = Object.values(report.operations).flatMap((group) => group.checks.filter((check) => check.severity === "warning").map((check) => check.check));
      expect(new Set(warned)).toEqual(new Set(["http-stalled-body"]));
      expect(proxy.coverage().totals.exercised).toBe(proxy.coverage().totals.operations);
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
