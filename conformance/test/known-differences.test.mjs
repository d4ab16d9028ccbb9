// The accepted differences of Firecrawl 61e38dc, for the kit and for the proxy: each in the shared
// format, naming a documented operation, its kind and its source in Firecrawl's code.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseKnownDifferences } from "@api-contracts/contract-core";
import { PROXY_KNOWN_DIFFERENCES, summariseProxyReport } from "../src/index.mjs";
import { operationIdsOf } from "./operations.mjs";

const operationIds = new Set(operationIdsOf("webdata"));
const KINDS = ["version difference of release 61e38dc", "live service configured without database authentication"];
const files = {
  kit: path.join(import.meta.dirname, "..", "known-differences", "firecrawl.json"),
  proxy: PROXY_KNOWN_DIFFERENCES,
};

describe.each(Object.entries(files))("known differences of firecrawl@61e38dc for the %s", (tool, file) => {
  const entries = parseKnownDifferences(JSON.parse(readFileSync(file, "utf8")), file);

  it("every entry names a documented operation, starts its why with its kind and names its source file and symbol", () => {
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      expect(operationIds, entry.operation).toContain(entry.operation);
      expect(KINDS.some((kind) => entry.why.startsWith(kind)), entry.why).toBe(true);
      expect(entry.why).toMatch(/firecrawl\/firecrawl@61e38dc893a5 apps\/api\/src\/\S+\.ts [A-Za-z]+/);
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
