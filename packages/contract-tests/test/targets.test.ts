import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDocsServer } from "@api-contracts/docs/server";
import { startMockServer } from "@api-contracts/mock-server";
import { formatResult, listChecks, optionsFromEnv, runContractTests, type Report } from "../src/index.js";
import { REASON_LIMIT } from "../src/output.js";
import { KEYS, runCli, startDecisionServer, startFakeTarget } from "./helpers.js";

const SERVICES = ["entitlements", "webdata"] as const;
const KEY = "fc-0123456789abcdef0123456789abcdef";
const require = createRequire(import.meta.url);
let dir: string;
const mocks = {} as Record<(typeof SERVICES)[number], { url: string; close(): Promise<void> }>;
let docs: { url: string; close(): Promise<void> };

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "contract-targets-"));
  for (const service of SERVICES) mocks[service] = await startMockServer({ service });
  docs = await startDocsServer({ port: 0 });
});
afterAll(async () => {
  for (const mock of Object.values(mocks)) await mock.close();
  await docs?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(SERVICES)("%s mock server", (service) => {
  let mock: { url: string; close(): Promise<void> };
  beforeAll(() => {
    mock = mocks[service];
  });

  it("passes every schema-level check against the spec-faithful mock, one line per check", async () => {
    const reportFile = path.join(dir, `${service}-mock.json`);
    const run = await runCli(["--service", service, "--base-url", mock.url, "--api-key", KEYS[service], "--report", reportFile]);
    expect(run.failed, run.out.join("\n")).toEqual([]);
    expect(run.code).toBe(0);
    const checks = listChecks(service, "schema");
    expect(run.passed).toEqual(checks.map((check) => `${check.operation}/${check.name}`));
    expect(run.out.at(-1)).toBe(`${checks.length} passed, 0 failed`);

    const report = JSON.parse(readFileSync(reportFile, "utf8")) as Report;
    expect(report).toMatchObject({ service, level: "schema", passed: checks.length, failed: 0, failOn: "failure" });
    const grouped = Object.entries(report.operations).flatMap(([operation, group]) => group.checks.map((check) => `${operation}/${check.check}`));
    expect(grouped.sort()).toEqual([...run.passed].sort());
  });

  it("schema level covers, for every operation, the success path and missing auth; another scheme where the API refuses it without knowing keys", () => {
    const checks = listChecks(service, "schema");
    const operations = new Set(checks.map((check) => check.operation));
    // Autumn reads `Bearer ` exactly; Firecrawl takes the second word whatever the scheme, so only a server that knows keys refuses it.
    const schemeAtSchemaLevel = service === "entitlements";
    for (const operation of operations) {
      const mine = checks.filter((check) => check.operation === operation).map((check) => check.name);
      expect(mine, operation).toContain("success");
      expect(mine, operation).toContain("auth-missing");
      expect(mine.includes("auth-wrong-scheme"), operation).toBe(schemeAtSchemaLevel);
      const behaviour = listChecks(service, "behavior").filter((check) => check.operation === operation).map((check) => check.name);
      expect(behaviour, operation).toContain("auth-wrong-scheme");
    }
  });

  it("runs configured by CONTRACT_* environment variables alone", async () => {
    const env = { CONTRACT_SERVICE: service, CONTRACT_BASE_URL: mock.url, CONTRACT_API_KEY: KEYS[service], CONTRACT_LEVEL: "schema" };
    const report = await runContractTests(optionsFromEnv(env));
    expect(report.failed).toBe(0);
    const run = await runCli([], env);
    expect(run.code).toBe(0);
  });
});

describe("coverage: what a run exercised, in the JSON report, the JUnit file and the summary", () => {
  it.each(SERVICES)("%s: per operation, the documented statuses seen and not seen and the request members sent, in contract-core's coverage format", async (service) => {
    const reportFile = path.join(dir, `${service}-coverage.json`);
    const junitFile = path.join(dir, `${service}-coverage.xml`);
    const run = await runCli(["--service", service, "--base-url", mocks[service].url, "--api-key", KEYS[service], "--report", reportFile, "--junit", junitFile]);
    expect(run.code).toBe(0);
    const { coverage } = JSON.parse(readFileSync(reportFile, "utf8")) as Report;
    const schema = JSON.parse(readFileSync(require.resolve("@api-contracts/contract-core/coverage.schema.json"), "utf8")) as object;
    const validate = new Ajv2020({ strict: true }).compile(schema);
    expect(validate(coverage), JSON.stringify(validate.errors)).toBe(true);
    expect(coverage.api).toBe(service);
    // Every operation is exercised at schema level, and answers its success and its 401.
    expect(coverage.totals.exercised).toBe(coverage.totals.operations);
    for (const [operationId, op] of Object.entries(coverage.operations)) {
      expect(op.statuses.seen, operationId).toEqual(expect.arrayContaining([expect.stringMatching(/^2/), "401"]));
      expect([...op.statuses.seen, ...op.statuses.notSeen].sort(), operationId).toEqual([...new Set([...op.statuses.seen, ...op.statuses.notSeen])].sort());
      expect(op.statuses.undocumented, operationId).toEqual([]);
    }
    const checkOrCrawl = service === "entitlements" ? coverage.operations.checkAccess! : coverage.operations.startCrawl!;
    expect(checkOrCrawl.members.sent).toEqual(expect.arrayContaining([service === "entitlements" ? "body/customer_id" : "body/url"]));
    expect(coverage.totals.statuses.covered).toBe(Object.values(coverage.operations).reduce((sum, op) => sum + op.statuses.seen.length, 0));

    // The terminal: a coverage line with the totals before the run's totals.
    const { totals } = coverage;
    expect(run.out).toContain(`coverage: ${totals.exercised} of ${totals.operations} operations exercised, ${totals.statuses.covered} of ${totals.statuses.documented} documented statuses seen, ${totals.members.covered} of ${totals.members.documented} request members sent`);
    // JUnit: each operation's suite carries its coverage as properties.
    const xml = readFileSync(junitFile, "utf8");
    const [firstOperation, first] = Object.entries(coverage.operations)[0]!;
    const suite = new RegExp(`<testsuite name="${service} ${firstOperation}"[^>]*>\\s*<properties>([\\s\\S]*?)</properties>`).exec(xml)?.[1];
    expect(suite).toContain(`<property name="coverage.statuses.seen" value="${first.statuses.seen.join(" ")}"/>`);
    expect(suite).toContain(`<property name="coverage.statuses.not-seen" value="${first.statuses.notSeen.join(" ")}"/>`);
    expect(suite).toContain(`<property name="coverage.members.sent" value="${first.members.sent.join(" ")}"/>`);
    // Each test case carries how long its check took, in seconds, as the JSON report has it in milliseconds.
    const { operations } = JSON.parse(readFileSync(reportFile, "utf8")) as Report;
    const times = [...xml.matchAll(/<testcase [^>]*\btime="(\d+\.\d{3})"/g)].map((match) => match[1]);
    const durations = Object.values(operations).flatMap((group) => group.checks.map((check) => (check.durationMs! / 1000).toFixed(3)));
    expect(times).toHaveLength((xml.match(/<testcase /g) ?? []).length);
    expect(times).toEqual(durations);
  });
});

describe("result lines a terminal can show", () => {
  it("a long reason is cut to its limit on the terminal", () => {
    const reason = `the answer was ${"x".repeat(600)}`;
    const line = formatResult({ operation: "startCrawl", check: "success", what: "a valid request", level: "schema", passed: false, reason });
    expect(line).toBe(`FAIL startCrawl success: a valid request -- ${reason.slice(0, REASON_LIMIT - 1)}…`);
    expect(formatResult({ operation: "startCrawl", check: "success", what: "a valid request", level: "schema", passed: true, reason: "200 as documented" })).toBe("PASS startCrawl success: a valid request -- 200 as documented");
  });
});

describe("before any check: a target that does not answer as the API ends the run with one message (exit 2)", () => {
  /** A run that must stop before its checks: its one message, with no check reported and no report written. */
  const stopped = async (service: string, baseUrl: string, key = KEY) => {
    const reportFile = path.join(dir, `stopped-${Math.random().toString(36).slice(2)}.json`);
    const run = await runCli(["--service", service, "--base-url", baseUrl, "--api-key", key, "--report", reportFile]);
    expect(run.code, run.out.join("\n")).toBe(2);
    expect(run.out.filter((line) => /^(PASS|FAIL|WARN|SKIP|KNOWN) /.test(line))).toEqual([]);
    expect(run.err).toHaveLength(1);
    expect(existsSync(reportFile)).toBe(false);
    expect([...run.out, ...run.err].join("\n")).not.toContain(key);
    return run.err[0]!;
  };

  it("the port of the other API: its error shape names it", async () => {
    expect(await stopped("entitlements", mocks.webdata.url)).toMatch(/^contract-test: the target does not answer as the Entitlements API: POST \/v1\/balances\.check without a key was answered 404 application\/json, in the Web Data API's error shape: this port seems to serve the Web Data API, not the Entitlements API; .*--service webdata$/);
    expect(await stopped("webdata", mocks.entitlements.url)).toMatch(/in the Entitlements API's error shape: this port seems to serve the Entitlements API, not the Web Data API/);
  });

  it("a base URL that ends in the version the API's paths already carry", async () => {
    expect(await stopped("entitlements", `${mocks.entitlements.url}/v1`)).toBe(
      `contract-test: the target does not answer as the Entitlements API: --base-url ends in /v1, but the Entitlements API's paths already carry their version (POST /v1/balances.check), so requests went to /v1/v1/balances.check; try --base-url ${mocks.entitlements.url}`,
    );
    expect(await stopped("webdata", `${mocks.webdata.url}/v2/`)).toMatch(/--base-url ends in \/v2, .*try --base-url http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("the docs server: answers that are not JSON from a web page, named by its title", async () => {
    expect(await stopped("webdata", docs.url)).toMatch(/^contract-test: the target does not answer as the Web Data API: POST \/v2\/crawl without a key was answered \d+ [^,]+, and http:\/\/127\.0\.0\.1:\d+ serves a web page \("API reference: Entitlements API and Web Data API"\): this looks like a web site such as the docs server, not the Web Data API \(its mock listens on 4010 by default\)$/);
  });

  it("a prefix the base URL lacks: a 404 where the API answers", async () => {
    expect(await stopped("webdata", `${mocks.webdata.url}/api`)).toMatch(/^contract-test: the target does not answer as the Web Data API: POST \/v2\/crawl without a key was answered 404 application\/json: no Web Data API operation seems to be served at this path; .*put the prefix in --base-url/);
  });

  it("a server of something else: a page that is not JSON", async () => {
    const other = await startFakeTarget((_req, res) => void res.writeHead(200, { "content-type": "text/plain" }).end("hello"));
    try {
      expect(await stopped("webdata", other.url)).toMatch(/POST \/v2\/crawl without a key was answered 200 text\/plain, not JSON: --base-url does not seem to serve the Web Data API$/);
      expect(other.requests).toBe(2);
    } finally {
      await other.close();
    }
  });

  it("a key the target refuses: one message naming where the key comes from, never the key", async () => {
    const server = await startDecisionServer("webdata", { keys: ["fc-the0right0key0000000000000000000"] });
    try {
      expect(await stopped("webdata", server.url)).toBe("contract-test: the target refuses the API key: POST /v2/crawl carrying it was answered 401; check --api-key (or CONTRACT_API_KEY, or api_keys.webdata in the fixtures)");
      // One request without the key, one with it: nothing else.
      expect(server.requests).toBe(2);
      const right = await runCli(["--service", "webdata", "--base-url", server.url, "--api-key", "fc-the0right0key0000000000000000000", "--level", "http", "--timeout", "3000"]);
      expect(right.code, right.err.join("\n")).toBe(0);
    } finally {
      await server.close();
    }
  });
});
