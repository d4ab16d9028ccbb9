// Coverage, as the kit and the proxy both count it: documented statuses seen, request members sent.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain script of this package, without types.
import { renderType, typeFile } from "../scripts/generate-types.mjs";
import { CoverageRecorder, coverageSchema, formatCoverage, loadBundle } from "../src/index.js";

const require = createRequire(import.meta.url);

/** A small description: a body whose members come from `$ref`, `allOf` and `oneOf`, a query and a header parameter, a `4XX` range. */
const document = {
  openapi: "3.1.0",
  info: { title: "t", version: "1" },
  paths: {
    "/v1/things": {
      post: {
        operationId: "makeThing",
        parameters: [
          { name: "dry_run", in: "query", schema: { type: "boolean" } },
          { name: "X-Api-Version", in: "header", schema: { type: "string" } },
        ],
        requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } } },
        responses: { "200": { description: "ok" }, "4XX": { description: "refused" }, default: { description: "other" } },
      },
    },
    "/v1/things/{id}": {
      get: { operationId: "getThing", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: { "200": { description: "ok" } } },
    },
  },
  components: {
    schemas: {
      Thing: { allOf: [{ properties: { name: { type: "string" } } }, { oneOf: [{ properties: { size: { type: "integer" } } }, { properties: { "a/b": { type: "string" } } }] }] },
    },
  },
};

describe("coverage", () => {
  it("documented statuses seen and not (a range counts once), undocumented ones, members one level deep through $ref, allOf and oneOf", () => {
    const coverage = new CoverageRecorder("things", document);
    coverage.record("makeThing", 200, { body: { name: "x", extra: 1 }, query: ["dry_run", "other"], headers: ["x-api-version", "Authorization"] });
    coverage.record("makeThing", 418, { body: { "a/b": "y" } });
    coverage.record("makeThing", 422, { body: "not an object" });
    coverage.record("getThing", 999);
    coverage.record(null, 404);
    const report = coverage.report();
    expect(report.operations.makeThing).toEqual({
      method: "POST",
      path: "/v1/things",
      exchanges: 3,
      statuses: { seen: ["200", "4XX"], notSeen: ["default"], undocumented: [] },
      members: { sent: ["body/name", "body/a~1b", "query/dry_run", "header/x-api-version"], notSent: ["body/size"] },
    });
    expect(report.operations.getThing).toMatchObject({ exchanges: 1, statuses: { seen: [], notSeen: ["200"], undocumented: ["999"] }, members: { sent: [], notSent: [] } });
    expect(report).toMatchObject({ api: "things", exchanges: 5, unmatched: 1, totals: { operations: 2, exercised: 2, statuses: { documented: 4, covered: 2 }, members: { documented: 5, covered: 4 } } });
    expect(formatCoverage(report)).toEqual([
      "coverage: 2 of 2 operations exercised, 2 of 4 documented statuses seen, 4 of 5 request members sent",
      "  makeThing: statuses not seen default; members not sent body/size",
      "  getThing: statuses not seen 200; undocumented statuses answered 999",
      "  1 of 5 requests hit no documented operation",
    ]);
  });

  it("an operation nothing reached is listed as not exercised; every documented operation of a bundle is in the report", () => {
    const report = new CoverageRecorder("webdata", loadBundle("webdata")).report();
    expect(Object.keys(report.operations)).toContain("startCrawl");
    expect(report.operations.startCrawl!.members.notSent).toEqual(expect.arrayContaining(["body/url", "body/scrapeOptions", "header/x-idempotency-key"]));
    expect(formatCoverage(report)).toContain("  startCrawl: not exercised");
  });

  it("the format is one JSON Schema, exported as @api-contracts/contract-core/coverage.schema.json, that every report meets", () => {
    const shipped = JSON.parse(readFileSync(require.resolve("@api-contracts/contract-core/coverage.schema.json"), "utf8")) as object;
    expect(shipped).toEqual(coverageSchema());
    const validate = new Ajv2020({ strict: true }).compile(shipped);
    const recorder = new CoverageRecorder("things", document);
    recorder.record("makeThing", 200, { body: { name: "x" } });
    expect(validate(recorder.report()), JSON.stringify(validate.errors)).toBe(true);
  });

  it("src/generated/coverage.ts is what the generator makes of the schema (regenerate with npm run generate)", async () => {
    expect(readFileSync(typeFile("coverage"), "utf8")).toBe(await renderType("coverage"));
  });
});
