import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { formatCoverage, type Coverage } from "@api-contracts/contract-core";
import { entitlementsKey, fakeUpstream, postJson, runProxyCommand, type Upstream } from "./support.js";

let upstream: Upstream | undefined;
afterAll(async () => upstream?.close());
const run = runProxyCommand;

describe("the contract-proxy command", () => {
  it("prints its URL first, a line per violation on stderr without the key, and the coverage and a summary on SIGTERM", async () => {
    upstream = await fakeUpstream((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ allowed: entitlementsKey })));
    const dir = mkdtempSync(join(tmpdir(), "contract-proxy-cli-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const report = join(dir, "report.jsonl");
    const coverageFile = join(dir, "coverage.json");
    const proxy = run(["--service", "entitlements", "--upstream", upstream.url, "--port", "0", "--report", report, "--coverage", coverageFile]);
    while (!proxy.out().includes("\n")) await once(proxy.child.stdout, "data");
    const url = proxy.out().split("\n")[0]!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const auth = { authorization: `Bearer ${entitlementsKey}` };
    await postJson(url, "/v1/balances.check", { customer_id: "cus_1", feature_id: "messages" }, auth);
    await postJson(url, "/v1/balances.check", { customer_id: entitlementsKey }, auth);
    proxy.child.kill("SIGTERM");
    const [code] = await once(proxy.child, "exit");
    expect(code).toBe(0);
    const coverage = JSON.parse(readFileSync(coverageFile, "utf8")) as Coverage;
    expect(coverage.operations.checkAccess).toMatchObject({ exchanges: 2, statuses: { seen: ["200"] }, members: { sent: ["body/customer_id", "body/feature_id"] } });
    expect(proxy.out()).toBe(`${url}\n${formatCoverage(coverage).join("\n")}\n2 exchanges, 3 violations\n`);
    expect(proxy.out()).toContain("coverage: 1 of 5 operations exercised, 1 of ");
    expect(proxy.err()).toMatch(/^violation: POST \/v1\/balances.check 200 checkAccess response: body\/customer_id is required \(and 3 more\)$/m);
    expect(proxy.err()).toMatch(/^violation: POST \/v1\/balances.check 200 checkAccess request: body\/feature_id is required/m);
    const lines = readFileSync(report, "utf8").trim().split("\n");
    expect(lines).toHaveLength(3);
    for (const text of [proxy.out(), proxy.err(), lines.join("\n")]) expect(text).not.toContain(entitlementsKey);
  });

  it("refuses an unknown service with its usage and exit code 2", async () => {
    const proxy = run(["--service", "nope", "--upstream", "http://127.0.0.1:1"]);
    const [code] = await once(proxy.child, "exit");
    expect(code).toBe(2);
    expect(proxy.err()).toContain("--service must be entitlements or webdata");
    expect(proxy.err()).toContain("Usage: contract-proxy");
  });
});
