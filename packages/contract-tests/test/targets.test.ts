import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer } from "@api-contracts/mock-server";
import { listChecks, optionsFromEnv, runContractTests, type Report } from "../src/index.js";
import { runCli } from "./helpers.js";

const SERVICES = ["entitlements", "webdata"] as const;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "contract-targets-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(SERVICES)("%s mock server", (service) => {
  let mock: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    mock = await startMockServer({ service });
  });
  afterAll(() => mock?.close());

  it("passes every schema-level check against the spec-faithful mock, one line per check", async () => {
    const reportFile = path.join(dir, `${service}-mock.json`);
    const run = await runCli(["--service", service, "--base-url", mock.url, "--api-key", "mock-accepts-any-key", "--report", reportFile]);
    expect(run.failed, run.out.join("\n")).toEqual([]);
    expect(run.code).toBe(0);
    const checks = listChecks(service, "schema");
    expect(run.passed).toEqual(checks.map((check) => `${check.operation}/${check.name}`));
    expect(run.out.at(-1)).toBe(`${checks.length} passed, 0 failed`);

    const report = JSON.parse(readFileSync(reportFile, "utf8")) as Report;
    expect(report).toMatchObject({ service, level: "schema", passed: checks.length, failed: 0 });
    const grouped = Object.entries(report.operations).flatMap(([operation, group]) => group.checks.map((check) => `${operation}/${check.check}`));
    expect(grouped.sort()).toEqual([...run.passed].sort());
  });

  it("schema level covers, for every operation, the success path and missing auth", () => {
    const checks = listChecks(service, "schema");
    const operations = new Set(checks.map((check) => check.operation));
    for (const operation of operations) {
      const mine = checks.filter((check) => check.operation === operation).map((check) => check.name);
      expect(mine, operation).toContain("success");
      expect(mine, operation).toContain("auth-missing");
      expect(mine, operation).toContain("auth-wrong-scheme");
    }
  });

  it("runs configured by CONTRACT_* environment variables alone", async () => {
    const env = { CONTRACT_SERVICE: service, CONTRACT_BASE_URL: mock.url, CONTRACT_API_KEY: "mock-accepts-any-key", CONTRACT_LEVEL: "schema" };
    const report = await runContractTests(optionsFromEnv(env));
    expect(report.failed).toBe(0);
    const run = await runCli([], env);
    expect(run.code).toBe(0);
  });
});
