// The known-differences format the kit and the proxy share: checked entry by entry, matched by
// operation, check and a substring of the failure, with the entries that never matched left stale.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { KnownDifferences, KnownDifferencesError, loadKnownDifferences, parseKnownDifferences } from "../src/index.js";

const entry = { operation: "getTokenUsage", check: "response", reason: "200 body/data/", why: "self-hosted" };

describe("known differences", () => {
  it("explain: operation and check equal, reason a substring; stale: the entries never used", () => {
    const other = { ...entry, operation: "cancelCrawl" };
    const known = new KnownDifferences(parseKnownDifferences([entry, other]));
    expect(known.explain("getTokenUsage", "request", "200 body/data/planTokens is required")).toBeUndefined();
    expect(known.explain("getTokenUsage", "response", "200 body/success is required")).toBeUndefined();
    expect(known.explain("getTokenUsage", "response", "200 body/data/planTokens is required")).toEqual(entry);
    expect(known.stale()).toEqual([other]);
  });

  it("a list that is not one is refused, naming the entry and the fault", () => {
    expect(() => parseKnownDifferences({})).toThrow(/must be a JSON array/);
    expect(() => parseKnownDifferences([entry, "x"])).toThrow(/entry 1 is not an object/);
    expect(() => parseKnownDifferences([{ ...entry, reason: "" }])).toThrow(/entry 0 needs a non-empty string reason/);
    expect(() => parseKnownDifferences([{ ...entry, kind: "version" }])).toThrow(KnownDifferencesError);
    const dir = mkdtempSync(path.join(tmpdir(), "known-differences-core-"));
    try {
      const file = path.join(dir, "list.json");
      writeFileSync(file, "[");
      expect(() => loadKnownDifferences(file)).toThrow(`--known-differences ${file} is not JSON`);
      writeFileSync(file, JSON.stringify([entry]));
      expect(loadKnownDifferences(file)).toEqual([entry]);
      expect(() => loadKnownDifferences(path.join(dir, "absent.json"))).toThrow(/cannot be read/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
