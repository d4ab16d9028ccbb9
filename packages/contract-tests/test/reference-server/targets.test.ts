// The contract-test kit's behaviour level against this server: ids and keys from its fixtures.
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listChecks } from "../../src/index.js";
import { defaultFixtures, startReferenceServer } from "@api-contracts/reference-server";
import { fixturesOnDisk, KIT_RUN_TIMEOUT_MS, KIT_WEBHOOK_SECRET, runCli, KIT_TARGET_LIMITS } from "./helpers.js";

let fixturesFile: string;
let fixturesDir: string;
let removeFixtures: () => void;

beforeAll(() => {
  ({ file: fixturesFile, dir: fixturesDir, remove: removeFixtures } = fixturesOnDisk("reference-kit-targets-"));
});
afterAll(() => removeFixtures());

describe.each(["entitlements", "webdata"] as const)("%s reference implementation under the contract-test kit", (service) => {
  let server: { url: string; close(): Promise<void> };
  /** As `reference-server` starts by default: a 5 s request deadline, shorter than the kit's 10 s --timeout. */
  let asShipped: { url: string; close(): Promise<void> };
  // Web data signs its crawl calls, and the kit's webhook stage checks them with the same secret.
  const signed = service === "webdata" ? { webhookSecret: KIT_WEBHOOK_SECRET } : {};
  const secretFlag = service === "webdata" ? ["--webhook-secret", KIT_WEBHOOK_SECRET] : [];
  beforeAll(async () => {
    server = await startReferenceServer({ service, limits: KIT_TARGET_LIMITS, ...signed });
    asShipped = await startReferenceServer({ service, ...signed });
  });
  afterAll(async () => {
    await server?.close();
    await asShipped?.close();
  });

  it("passes every behaviour-level check, with ids and the key from the fixtures file", async () => {
    const run = await runCli(["--service", service, "--base-url", server.url, "--fixtures", fixturesFile, "--level", "behavior", ...secretFlag]);
    expect(run.failed, run.out.join("\n")).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.passed.length).toBe(listChecks(service, "behavior").length);
    expect(run.passed.length).toBeGreaterThan(listChecks(service, "schema").length);
  }, KIT_RUN_TIMEOUT_MS);

  // Only web data describes webhooks a request subscribes to: the stage has nothing to start for entitlements.
  if (service === "webdata") it("--level webhooks: every call of its crawls keeps the contract, signed with --webhook-secret", async () => {
    const run = await runCli(["--service", service, "--base-url", server.url, "--fixtures", fixturesFile, "--level", "webhooks", ...secretFlag]);
    expect(run.failed, run.out.join("\n")).toEqual([]);
    expect(run.passed).toEqual(listChecks(service, "webhooks").map((check) => `${check.operation}/${check.name}`));
    expect(run.passed).toHaveLength(5);
    const wrong = await runCli(["--service", service, "--base-url", server.url, "--fixtures", fixturesFile, "--level", "webhooks", "--webhook-secret", "not-the-server's"]);
    expect(wrong.failed).toEqual(["startCrawl/webhook-signature"]);
  }, KIT_RUN_TIMEOUT_MS);

  it("a key the server does not know ends the run before any check: one message, exit 2, the key never printed", async () => {
    const reportFile = path.join(fixturesDir, `${service}-wrong-key.json`);
    const run = await runCli(["--service", service, "--base-url", server.url, "--api-key", "not-this-server's-key", "--report", reportFile]);
    expect(run.code).toBe(2);
    expect(run.out).toEqual([]);
    expect(run.err).toEqual([expect.stringMatching(new RegExp(`^contract-test: the target refuses the API key: POST /v\\d/\\S+ carrying it was answered 401; check --api-key \\(or CONTRACT_API_KEY, or api_keys\\.${service} in the fixtures\\)$`))]);
    expect(existsSync(reportFile)).toBe(false);
  }, KIT_RUN_TIMEOUT_MS);

  it("without --fixtures the schema level stops before any check, naming the id the server does not hold (the kit's placeholder)", async () => {
    const run = await runCli(["--service", service, "--base-url", server.url, "--api-key", defaultFixtures.api_keys[service]]);
    expect(run.code).toBe(2);
    expect(run.out).toEqual([]);
    expect(run.err).toEqual([expect.stringMatching(/^contract-test: the target holds no (customer "cus_contract_test" \(customer_id|monitor "[0-9a-f-]+" \(monitor_id), the kit's placeholder: no --fixtures given\): pass --fixtures with ids it holds \(contract-test init --service \w+ writes a file to fill in\)$/)]);
  }, KIT_RUN_TIMEOUT_MS);

  it("the preflight fails no correct run: --level http needs no fixtures, and with them the schema level passes", async () => {
    const http = await runCli(["--service", service, "--base-url", server.url, "--api-key", defaultFixtures.api_keys[service], "--level", "http"]);
    expect([...http.failed, ...http.warned], http.out.join("\n")).toEqual([]);
    expect(http.code).toBe(0);
    const schema = await runCli(["--service", service, "--base-url", server.url, "--fixtures", fixturesFile]);
    expect(schema.failed, schema.out.join("\n")).toEqual([]);
    expect(schema.code).toBe(0);
  }, KIT_RUN_TIMEOUT_MS);

  it("with the server's default limits and the kit's default --timeout the run is green with no warning: the server's request deadline ends the stalled bodies with 408 first", async () => {
    const run = await runCli(["--service", service, "--base-url", asShipped.url, "--fixtures", fixturesFile, "--level", "behavior", ...secretFlag]);
    expect(run.failed, run.out.join("\n")).toEqual([]);
    expect(run.warned, run.out.join("\n")).toEqual([]);
    expect(run.code).toBe(0);
    const stalled = listChecks(service, "behavior").filter((check) => check.name === "http-stalled-body").map((check) => `${check.operation}/${check.name}`);
    expect(run.passed).toEqual(expect.arrayContaining(stalled));
    expect(run.out.at(-1)).toBe(`${run.passed.length} passed, 0 failed`);
  }, KIT_RUN_TIMEOUT_MS);
});
