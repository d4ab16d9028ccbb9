// Narrowing and extending a run, as Schemathesis users expect: some operations only (by operationId
// or tag), and headers a gateway needs on every request; both stated in the report.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listChecks, type Report } from "../src/index.js";
import { contractOf } from "../src/judge.js";
import { PROBES } from "../src/probes/checks.js";
import { rawBytes } from "../src/probes/wire.js";
import { passOn, runCli, startDecisionServer, startFakeTarget, type ApiServer, type FakeTarget } from "./helpers.js";

const KEY = "fc-0123456789abcdef0123456789abcdef";
let dir: string;
let server: ApiServer;
let target: FakeTarget;
/** Every request the target received: its method, path and the gateway headers it carried. */
const seen: Array<{ line: string; tenant?: string; trace?: string }> = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "contract-selection-"));
  server = await startDecisionServer("webdata");
  target = await startFakeTarget((req, res) => {
    seen.push({ line: `${req.method} ${req.url}`, tenant: req.headers["x-tenant"] as string | undefined, trace: req.headers.traceparent as string | undefined });
    void passOn(server.url, req, res);
  });
});
afterAll(async () => {
  await target?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("--include and --exclude: operations by operationId or tag", () => {
  it("run only the checks of the operations kept, and the report and the terminal say which were asked for", async () => {
    const reportFile = path.join(dir, "narrowed.json");
    const run = await runCli(["--service", "webdata", "--base-url", target.url, "--api-key", KEY, "--include", "Crawl,getMonitor", "--exclude", "cancelCrawl", "--report", reportFile]);
    expect(run.code, run.out.join("\n")).toBe(0);
    expect(new Set(run.passed.map((name) => name.split("/")[0]))).toEqual(new Set(["startCrawl", "getMonitor"]));
    expect(run.passed).toEqual(listChecks("webdata", "schema", { include: ["Crawl", "getMonitor"], exclude: ["cancelCrawl"] }).map((check) => `${check.operation}/${check.name}`));
    const report = JSON.parse(readFileSync(reportFile, "utf8")) as Report;
    expect(report).toMatchObject({ include: ["Crawl", "getMonitor"], exclude: ["cancelCrawl"] });
    expect(Object.keys(report.operations)).toEqual(["startCrawl", "getMonitor"]);
    expect(run.out).toContain("operations: 2 checked (--include Crawl,getMonitor, --exclude cancelCrawl)");
  });

  it("an operation or tag the API does not have is a usage error (exit 2) naming what it has", async () => {
    const run = await runCli(["--service", "webdata", "--base-url", target.url, "--api-key", KEY, "--include", "crawl"]);
    expect(run.code).toBe(2);
    expect(run.err.join("\n")).toMatch(/"crawl" is neither an operationId nor a tag of Web Data API; it has startCrawl, .*Crawl \(tag\)/);
  });
});

describe("--header: a gateway's headers on every request", () => {
  it("every request carries them, generated ones included, and the report and the terminal name them", async () => {
    seen.length = 0;
    const reportFile = path.join(dir, "headers.json");
    const trace = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const run = await runCli(["--service", "webdata", "--base-url", target.url, "--api-key", KEY, "--header", "X-Tenant: acme", "--header", `traceparent: ${trace}`, "--generate", "3", "--seed", "1", "--report", reportFile]);
    expect(run.code, run.out.join("\n")).toBe(0);
    expect(seen.length).toBeGreaterThan(50);
    expect(seen.filter((request) => request.tenant !== "acme" || request.trace !== trace)).toEqual([]);
    expect((JSON.parse(readFileSync(reportFile, "utf8")) as Report).headers).toEqual(["X-Tenant", "traceparent"]);
    expect(run.out).toContain("headers added to every request: X-Tenant, traceparent");
  });

  it("the probes' raw requests carry them in their header section, whatever they break after it", () => {
    const ref = contractOf("webdata").operation("startCrawl");
    const op = { ref, path: "/v2/crawl", hasBody: true, documented: ref.responses.map((r) => r.status) };
    for (const probe of PROBES) {
      const bytes = rawBytes(probe.request(op, new URL(target.url), [{ text: "X-Tenant: acme\r\n" }]), KEY).toString("latin1");
      expect(bytes.slice(0, bytes.indexOf("\r\n\r\n")), probe.name).toMatch(/\r\nX-Tenant: acme(\r\n|$)/);
    }
  });

  it.each([
    ["Authorization: Bearer other", /--header cannot set Authorization: the kit sets it \(pass the key with --api-key\)/],
    ["Content-Length: 3", /--header cannot set Content-Length: the kit sets it/],
    ["X-Bad\u0001: value", /--header must be "Name: value"/],
    ["X-Split: a\rb", /--header must be "Name: value"/],
    ["no colon", /--header must be "Name: value"/],
  ])("%j is a usage error (exit 2)", async (header, message) => {
    const run = await runCli(["--service", "webdata", "--base-url", target.url, "--api-key", KEY, "--header", header]);
    expect(run.code).toBe(2);
    expect(run.err.join("\n")).toMatch(message);
  });
});
