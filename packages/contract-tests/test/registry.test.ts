import { describe, expect, it } from "vitest";
import { listApis } from "@api-contracts/contract-core";
import { listChecks, main } from "../src/index.js";
import { SERVICES as services } from "../src/checks/registry.js";
import { contractOf } from "../src/judge.js";
const generate = { examples: 1, seed: 7 };

describe("the registry of checks", () => {
  it.each(services)("every check of %s, generated ones included, applies to an operation of its contract", (service) => {
    const operations = new Set(contractOf(service).listOperations().map((op) => op.operationId));
    const checks = listChecks(service, "behavior", { generate });
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.filter((check) => !operations.has(check.operation))).toEqual([]);
  });

  it.each(services)("the generated checks of %s come last, at the schema level, and only with generate", (service) => {
    const checks = listChecks(service, "schema", { generate });
    const first = checks.findIndex((check) => check.generated);
    expect(first).toBeGreaterThan(0);
    expect(checks.slice(first).every((check) => check.generated && check.level === "schema")).toBe(true);
    expect(checks.slice(0, first).some((check) => check.generated)).toBe(false);
    expect(listChecks(service, "schema").some((check) => check.generated)).toBe(false);
    expect(listChecks(service, "webhooks", { generate }).filter((check) => check.generated)).toHaveLength(checks.length - first);
  });

  it("the command line names the APIs of contract-core's registry that have checks", async () => {
    expect(services.length).toBeGreaterThan(0);
    expect(listApis().map((api) => api.name)).toEqual(expect.arrayContaining(services));
    const err: string[] = [];
    const code = await main(["--service", "nonesuch", "--base-url", "http://127.0.0.1:9"], { out: () => {}, err: (line) => err.push(line), env: {} });
    expect(code).toBe(2);
    expect(err.join("\n")).toContain(`--service must be one of ${services.join(", ")} (got "nonesuch")`);
    expect(err.join("\n")).toContain(`--service <${services.join("|")}>`);
  });
});
