// The accepted differences of the recorded Firecrawl release, for the kit and (when it has any)
// for the proxy: each in the shared format, naming a documented operation, its kind and its source
// in the release's code.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseKnownDifferences } from "@api-contracts/contract-core";
import { PROXY_KNOWN_DIFFERENCES, summariseProxyReport } from "../src/index.mjs";
import { recordedDir } from "../src/judgement.mjs";
import { operationIdsOf } from "./operations.mjs";

const operationIds = new Set(operationIdsOf("webdata"));
const KINDS = ["live service configured without database authentication", "live service configured without Autumn and the main database"];
/** The release the published records hold, as a why names it: `<owner>/<name>@<its commit's first 12 hex digits>`. */
const recordedRelease = JSON.parse(readFileSync(path.join(recordedDir(), "firecrawl", "startCrawl.json"), "utf8"))[0].server.replace(/(@[0-9a-f]{12})[0-9a-f]{28}$/, "$1");
const files = Object.entries({
  kit: path.join(import.meta.dirname, "..", "known-differences", "firecrawl.json"),
  proxy: PROXY_KNOWN_DIFFERENCES,
}).filter(([tool, file]) => tool === "kit" || existsSync(file));

describe.each(files)(`known differences of ${recordedRelease} for the %s`, (tool, file) => {
  const entries = parseKnownDifferences(JSON.parse(readFileSync(file, "utf8")), file);

  it("every entry names a documented operation, starts its why with its kind and names its source file and symbol in the recorded release", () => {
    expect(entries.length).toBeGreaterThan(0);
    const source = new RegExp(`${recordedRelease.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} apps/api/src/\\S+\\.ts [A-Za-z]+`);
    for (const entry of entries) {
      expect(operationIds, entry.operation).toContain(entry.operation);
      expect(KINDS.some((kind) => entry.why.startsWith(kind)), entry.why).toBe(true);
      expect(entry.why).toMatch(source);
      if (tool === "proxy") expect(["request", "response"]).toContain(entry.check);
    }
  });

  it("no two entries match the same failure", () => {
    const keys = entries.map((e) => `${e.operation} ${e.check} ${e.reason}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("no entry accepts an HTTP probe's answer: the kit reports the server's parser answers as warnings", () => {
    expect(entries.filter((entry) => entry.check.startsWith("http-")).map((entry) => `${entry.operation} ${entry.check}`)).toEqual([]);
  });
});

describe("a contract-proxy report, summed up", () => {
  it("counts violations apart from known ones, notices and stale entries", () => {
    const line = { service: "webdata", operationId: "getTokenUsage", method: "GET", path: "/v2/team/token-usage", status: 200, direction: "response" };
    const error = { in: "body", pointer: "/data/planTokens", keyword: "required", message: "is required" };
    const text = [
      { ...line, errors: [error] },
      { ...line, errors: [error], known: ["version difference"] },
      { ...line, errors: [{ ...error, keyword: "judgeLimit" }], judged: false },
      { service: "webdata", stale: { operation: "cancelCrawl", check: "response", reason: "x", why: "y" } },
    ].map((l) => JSON.stringify(l)).join("\n");
    const summary = summariseProxyReport(`${text}\n`);
    expect(summary.violations).toHaveLength(1);
    expect(summary).toMatchObject({ known: 1, notJudged: 1, stale: [{ operation: "cancelCrawl" }] });
    expect(summariseProxyReport("")).toMatchObject({ violations: [], known: 0, stale: [] });
  });
});
