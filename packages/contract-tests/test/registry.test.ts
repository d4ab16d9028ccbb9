import { describe, expect, it } from "vitest";
import { listApis } from "@api-contracts/contract-core";
import { listChecks, main, services } from "../src/index.js";
import { contractOf } from "../src/judge.js";
import { selectOperations } from "../src/checks/registry.js";
const generate = { examples: 1, seed: 7 };

describe("the registry of checks", () => {
  it.each(services())("every check of %s, generated ones included, applies to an operation of its contract", (service) => {
    const operations = new Set(contractOf(service).listOperations().map((op) => op.operationId));
    const checks = listChecks(service, "behavior", { generate });
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.filter((check) => !operations.has(check.operation))).toEqual([]);
  });

  it.each(services())("the generated checks of %s come last, at the schema level, and only with generate", (service) => {
    const checks = listChecks(service, "schema", { generate });
    const first = checks.findIndex((check) => check.generated);
    expect(first).toBeGreaterThan(0);
    expect(checks.slice(first).every((check) => check.generated && check.level === "schema")).toBe(true);
    expect(checks.slice(0, first).some((check) => check.generated)).toBe(false);
    expect(listChecks(service, "schema").some((check) => check.generated)).toBe(false);
    expect(listChecks(service, "webhooks", { generate }).filter((check) => check.generated)).toHaveLength(checks.length - first);
  });

  it("the command line names the APIs of contract-core's registry", async () => {
    expect(services()).toEqual(listApis().map((api) => api.name));
    const err: string[] = [];
    const code = await main(["--service", "nonesuch", "--base-url", "http://127.0.0.1:9"], { out: () => {}, err: (line) => err.push(line), env: {} });
    expect(code).toBe(2);
    expect(err.join("\n")).toContain(`--service must be one of ${services().join(", ")} (got "nonesuch")`);
    expect(err.join("\n")).toContain(`--service <${services().join("|")}>`);
  });
});

describe("narrowing a run to some operations", () => {
  const webdata = contractOf("webdata");

  it("--include keeps the operations of an operationId or a tag, --exclude leaves them out, in the description's order", () => {
    expect([...selectOperations(webdata, { include: ["getMonitor", "startCrawl"] })]).toEqual(["startCrawl", "getMonitor"]);
    const tag = webdata.operation("getTokenUsage").operation.tags as string[];
    expect([...selectOperations(webdata, { include: [tag[0]!] })]).toContain("getTokenUsage");
    expect(selectOperations(webdata, { exclude: ["startCrawl"] }).has("startCrawl")).toBe(false);
    expect(new Set(listChecks("webdata", "behavior", { include: ["cancelCrawl"], generate }).map((check) => check.operation))).toEqual(new Set(["cancelCrawl"]));
  });

  it("a name that is neither an operationId nor a tag, or a selection that keeps nothing, is a usage error naming what there is", () => {
    expect(() => selectOperations(webdata, { include: ["startcrawl"] })).toThrow(/"startcrawl" is neither an operationId nor a tag of Web Data API; it has startCrawl, cancelCrawl, .* \(tag\)/);
    expect(() => selectOperations(webdata, { include: ["startCrawl"], exclude: ["startCrawl"] })).toThrow(/leaves no operation of Web Data API/);
  });
});
