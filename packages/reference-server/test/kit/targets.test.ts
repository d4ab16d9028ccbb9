// The contract-test kit's behaviour level against this server: ids and keys from its fixtures.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listChecks } from "@api-contracts/contract-tests";
import { startReferenceServer } from "../../src/index.js";
import { fixturesOnDisk, KIT_RUN_TIMEOUT_MS, runCli, KIT_TARGET_LIMITS } from "./helpers.js";

let fixturesFile: string;
let removeFixtures: () => void;

beforeAll(() => {
  ({ file: fixturesFile, remove: removeFixtures } = fixturesOnDisk("reference-kit-targets-"));
});
afterAll(() => removeFixtures());

describe.each(["entitlements", "webdata"] as const)("%s reference implementation under the contract-test kit", (service) => {
  let server: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    server = await startReferenceServer({ service, limits: KIT_TARGET_LIMITS });
  });
  afterAll(() => server?.close());

  it("passes every behaviour-level check, with ids and the key from the fixtures file", async () => {
    const run = await runCli(["--service", service, "--base-url", server.url, "--fixtures", fixturesFile, "--level", "behavior"]);
    expect(run.failed, run.out.join("\n")).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.passed.length).toBe(listChecks(service, "behavior").length);
    expect(run.passed.length).toBeGreaterThan(listChecks(service, "schema").length);
  }, KIT_RUN_TIMEOUT_MS);
});
