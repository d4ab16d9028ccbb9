// A failure the implementer has accepted is reported KNOWN and does not fail the run; an accepted
// difference that no longer occurs is reported STALE; a list that is not one is refused.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer } from "@api-contracts/mock-server";
import { parseKnownDifferences, UsageError } from "../src/index.js";
import { passOn, runCli, startFakeTarget, type FakeTarget } from "./helpers.js";

const key = "fc-0123456789abcdef0123456789abcdef";
let mock: Awaited<ReturnType<typeof startMockServer>>;
let target: FakeTarget;
let dir: string;

beforeAll(async () => {
  mock = await startMockServer({ service: "webdata" });
  // The mock, except that token usage without credentials is a 500 instead of the documented 401.
  target = await startFakeTarget(async (req, res) => {
    if (req.url === "/v2/team/token-usage" && !req.headers.authorization) {
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ success: false, error: "An unexpected error occurred on the server." }));
      return;
    }
    await passOn(mock.url, req, res);
  });
  dir = mkdtempSync(path.join(tmpdir(), "known-differences-"));
});
afterAll(async () => {
  await target.close();
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

const listFile = (name: string, content: unknown) => {
  const file = path.join(dir, name);
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
};
const run = (...extra: string[]) => runCli(["--service", "webdata", "--base-url", target.url, "--api-key", key, ...extra]);
const accepted = { operation: "getTokenUsage", check: "auth-missing", reason: "got 500", why: "our gateway answers 500 before auth" };

describe("--known-differences", () => {
  it("without a list, the fault fails the run", async () => {
    const result = await run();
    expect(result.code).toBe(1);
    expect(result.failed).toEqual(["getTokenUsage/auth-missing"]);
  });

  it("a listed failure is KNOWN with its reason, the run passes, and an entry that matched nothing is STALE", async () => {
    const stale = { operation: "cancelCrawl", check: "success", reason: "expected 2xx", why: "fixed since" };
    const result = await run("--known-differences", listFile("list.json", [accepted, stale]));
    expect(result.code, result.out.join("\n")).toBe(0);
    expect(result.failed).toEqual([]);
    expect(result.out.find((line) => line.startsWith("KNOWN getTokenUsage auth-missing"))).toContain("(known difference: our gateway answers 500 before auth)");
    expect(result.out.filter((line) => line.startsWith("STALE"))).toEqual([expect.stringContaining("STALE cancelCrawl success")]);
    expect(result.out.at(-1)).toMatch(/^\d+ passed, 0 failed, 1 known$/);
  });

  it("an entry whose reason the failure does not contain explains nothing", async () => {
    const result = await run("--known-differences", listFile("other.json", [{ ...accepted, reason: "got 503" }]));
    expect(result.code).toBe(1);
    expect(result.failed).toEqual(["getTokenUsage/auth-missing"]);
    expect(result.out.some((line) => line.startsWith("STALE getTokenUsage auth-missing"))).toBe(true);
  });

  it("a file that is not a list of entries is refused with exit 2, naming the fault", async () => {
    for (const [content, said] of [
      ["{", /is not JSON/],
      [{ operation: "x" }, /must be a JSON array/],
      [[{ ...accepted, why: "" }], /entry 0 needs a non-empty string why/],
      [[{ ...accepted, severity: "low" }], /entry 0 has unknown member severity/],
    ] as const) {
      const result = await run("--known-differences", listFile("bad.json", content));
      expect(result.code).toBe(2);
      expect(result.err.join("\n")).toMatch(said);
    }
    expect(() => parseKnownDifferences([accepted])).not.toThrow();
    expect(() => parseKnownDifferences("nope")).toThrow(UsageError);
  });
});
