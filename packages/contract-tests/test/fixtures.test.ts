import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer } from "@api-contracts/mock-server";
// @ts-expect-error: a plain script of this package, without types.
import { copy, source } from "../scripts/copy-fixtures-schema.mjs";
import { checkFixtures, runContractTests, UsageError } from "../src/index.js";
import { FIXTURES_FILE, runCli } from "./helpers.js";

const require = createRequire(import.meta.url);
const valid = JSON.parse(readFileSync(FIXTURES_FILE, "utf8")) as Record<string, unknown>;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "contract-fixtures-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fileWith(content: unknown): string {
  const file = path.join(dir, `fixtures-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(content));
  return file;
}

describe("fixtures format: one JSON Schema, shipped with the kit", () => {
  it("the schema is exported as @api-contracts/contract-tests/fixtures.schema.json and accepts the kit's test fixtures", () => {
    const schema = JSON.parse(readFileSync(require.resolve("@api-contracts/contract-tests/fixtures.schema.json"), "utf8")) as object;
    const validate = new Ajv2020({ strict: true }).compile(schema);
    expect(validate(valid), JSON.stringify(validate.errors)).toBe(true);
  });

  it("the kit's schema is contract-core's format, copied by the build (npm run generate), so that its old subpath still resolves", () => {
    expect(readFileSync(copy, "utf8")).toBe(readFileSync(source, "utf8"));
    expect(source).toBe(require.resolve("@api-contracts/contract-core/fixtures.schema.json"));
  });

  it("members the kit does not know, such as a server's world, are allowed at the top level", () => {
    expect(() => checkFixtures({ ...valid, world: { entitlements: { features: [] } }, comment: "seeded by hand" })).not.toThrow();
  });

  it.each([
    ["a missing member", { webdata: { crawl_url: "https://example.com" } }, /"webdata" section lacks "monitor_id"/],
    ["several missing members, each named", { entitlements: { customer_id: "cus_1" } }, /lacks "metered_feature_id"; .*lacks "unknown_customer_id"/],
    ["a member of the wrong type", { webdata: { monitor_id: 7, crawl_url: "https://example.com" } }, /member "webdata\.monitor_id" must be string/],
    ["an empty key", { api_keys: { webdata: "" } }, /member "api_keys\.webdata" must NOT have fewer than 1 characters/],
    ["a crawl URL that is not http(s)", { webdata: { monitor_id: "m", crawl_url: "ftp://example.com" } }, /member "webdata\.crawl_url" must match pattern/],
    ["a misspelt member in a section", { webdata: { monitor_id: "m", crawl_url: "https://example.com", monitor: "m" } }, /"webdata" section has "monitor", which is not part of the format/],
    ["a file that is not an object", ["webdata"], /the file must be object/],
  ])("%s is a usage error (exit 2) naming it", async (_label, content, message) => {
    const run = await runCli(["--service", "webdata", "--base-url", "http://127.0.0.1:1", "--api-key", "fc-fixtures-test-key", "--fixtures", fileWith(content)]);
    expect(run.code).toBe(2);
    expect(run.err.join("\n")).toMatch(message);
    expect(run.err.join("\n")).toMatch(/^contract-test: fixtures file .*\.json: /);
    expect(run.out).toEqual([]);
  });

  it("a fixtures object passed to runContractTests is checked the same way", async () => {
    const run = runContractTests({ service: "webdata", baseUrl: "http://127.0.0.1:1", apiKey: "fc-fixtures-test-key", fixtures: { webdata: { crawl_url: "x" } } as never });
    await expect(run).rejects.toThrow(UsageError);
    await expect(run).rejects.toThrow(/lacks "monitor_id"/);
  });

  it("the kit's test fixtures drive a run against the mock, the key coming from api_keys", async () => {
    const mock = await startMockServer({ service: "entitlements" });
    try {
      const run = await runCli(["--service", "entitlements", "--base-url", mock.url, "--fixtures", FIXTURES_FILE]);
      expect(run.failed, run.out.join("\n")).toEqual([]);
      expect(run.code).toBe(0);
    } finally {
      await mock.close();
    }
  });
});
