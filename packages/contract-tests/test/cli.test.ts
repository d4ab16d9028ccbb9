import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { optionsFromEnv } from "../src/index.js";
import { runCli } from "./helpers.js";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const repoRoot = path.resolve(packageDir, "../..");
let dir: string;
let closedPort: number;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "contract-cli-"));
  // A port that was just free and is closed again: nothing answers there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const unreachable = () => `http://127.0.0.1:${closedPort}`;

describe("command line: exit status 2 for bad arguments and unreachable servers", () => {
  it.each([
    ["no arguments", [], /--service is required; --base-url is required/],
    ["an unknown service", ["--service", "billing", "--base-url", "http://127.0.0.1:1"], /--service must be one of entitlements, webdata/],
    ["an unknown level", ["--service", "webdata", "--base-url", "http://127.0.0.1:1", "--level", "deep"], /--level must be one of schema, behavior/],
    ["an unknown flag", ["--service", "webdata", "--base-url", "http://127.0.0.1:1", "--verbose"], /Unknown option '--verbose'/],
    ["a base URL that is not a URL", ["--service", "webdata", "--base-url", "localhost", "--api-key", "fc-cli-test-key-0123"], /is not an http or https URL/],
    ["no API key anywhere", ["--service", "webdata", "--base-url", "http://127.0.0.1:1"], /an API key is needed/],
    ["behavior level without fixtures", ["--service", "webdata", "--base-url", "http://127.0.0.1:1", "--api-key", "fc-cli-test-key-0123", "--level", "behavior"], /--level behavior needs --fixtures/],
    ["a fixtures file that does not exist", ["--service", "webdata", "--base-url", "http://127.0.0.1:1", "--fixtures", "/nonexistent/fixtures.json"], /cannot read fixtures file/],
  ])("exit 2 for %s, with a message naming the problem", async (_label, args, message) => {
    const run = await runCli(args as string[]);
    expect(run.code).toBe(2);
    expect(run.err.join("\n")).toMatch(message);
    expect(run.out).toEqual([]);
  });

  it("exit 2 when the fixtures lack a member the behavior level needs, naming it", async () => {
    const file = path.join(dir, "partial.json");
    writeFileSync(file, JSON.stringify({ webdata: { crawl_url: "https://example.com" }, api_keys: { webdata: "fc-cli-test-key-0123" } }));
    const run = await runCli(["--service", "webdata", "--base-url", "http://127.0.0.1:1", "--fixtures", file, "--level", "behavior"]);
    expect(run.code).toBe(2);
    expect(run.err.join("\n")).toMatch(/lacks "monitor_id"/);
  });

  it("exit 2 when the server cannot be reached, before any check is reported", async () => {
    const run = await runCli(["--service", "entitlements", "--base-url", unreachable(), "--api-key", "fc-cli-test-key-0123"]);
    expect(run.code).toBe(2);
    expect(run.err.join("\n")).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+.*ECONNREFUSED/);
    expect(run.out).toEqual([]);
  });

  it("optionsFromEnv reads every CONTRACT_* variable the command line reads, and refuses a bad one", () => {
    const list = path.join(dir, "known.json");
    writeFileSync(list, JSON.stringify([{ operation: "checkAccess", check: "http-stalled-body", reason: "no 408", why: "a 30 s deadline" }]));
    const base = { CONTRACT_SERVICE: "entitlements", CONTRACT_BASE_URL: unreachable() };
    const options = optionsFromEnv({ ...base, CONTRACT_FAIL_ON: "warning", CONTRACT_KNOWN_DIFFERENCES: list, CONTRACT_GENERATE: "7", CONTRACT_SEED: "42" });
    expect(options).toMatchObject({ failOn: "warning", generate: 7, seed: 42, knownDifferences: [{ check: "http-stalled-body" }] });
    expect(optionsFromEnv(base).failOn).toBeUndefined();
    expect(() => optionsFromEnv({ ...base, CONTRACT_FAIL_ON: "error" })).toThrow(/CONTRACT_FAIL_ON must be one of failure, warning/);
  });

  it("a flag wins over its environment variable", async () => {
    const run = await runCli(["--service", "webdata"], { CONTRACT_SERVICE: "billing", CONTRACT_BASE_URL: unreachable(), CONTRACT_API_KEY: "fc-cli-test-key-0123" });
    expect(run.code).toBe(2);
    expect(run.err.join("\n")).toMatch(/cannot reach/);
  });
});

describe("the contract-test executable", () => {
  it("runs as `npx contract-test` from the repository root and exits 2 for an unreachable server", () => {
    const result = spawnSync("npx", ["--no-install", "contract-test", "--service", "webdata", "--base-url", unreachable(), "--api-key", "fc-cli-test-key-0123"], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/cannot reach/);
  });

  it("prints the usage for --help and exits 0", () => {
    const result = spawnSync(process.execPath, [path.join(packageDir, "bin/contract-test.js"), "--help"], { encoding: "utf8" });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: contract-test --service <entitlements\|webdata> --base-url <URL>/);
  });

  it("tells the user to build when the compiled kit is missing", () => {
    const bin = path.join(dir, "unbuilt", "bin");
    mkdirSync(bin, { recursive: true });
    copyFileSync(path.join(packageDir, "bin/contract-test.js"), path.join(bin, "contract-test.js"));
    const result = spawnSync(process.execPath, [path.join(bin, "contract-test.js"), "--help"], { encoding: "utf8" });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/run `npm run build`/);
  });
});
