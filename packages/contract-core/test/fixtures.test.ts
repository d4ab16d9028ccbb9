// The fixtures format lives here: its schema (a subpath), its generated type and its parser.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain script of this package, without types.
import { renderType, typeFile } from "../scripts/generate-types.mjs";
import { FixturesFormatError, fixturesSchema, parseFixtures } from "../src/index.js";

const require = createRequire(import.meta.url);
const valid = { webdata: { monitor_id: "mon_1", crawl_url: "https://example.com" }, api_keys: { webdata: "fc-key" } };

describe("fixtures format", () => {
  it("its schema is exported as @api-contracts/contract-core/fixtures.schema.json, and src/generated/fixtures.ts is what the generator makes of it", async () => {
    expect(JSON.parse(readFileSync(require.resolve("@api-contracts/contract-core/fixtures.schema.json"), "utf8"))).toEqual(fixturesSchema());
    expect(readFileSync(typeFile("fixtures"), "utf8")).toBe(await renderType("fixtures"));
  });

  it("parseFixtures hands a valid object back, and throws its own error naming each member at fault", () => {
    expect(parseFixtures(valid)).toBe(valid);
    const bad = () => parseFixtures({ webdata: { monitor_id: "", extra: 1 }, api_keys: { webdata: "<fill in: x>" } }, "fixtures file f.json");
    expect(bad).toThrow(FixturesFormatError);
    expect(bad).toThrow(/^fixtures file f\.json: "webdata" section lacks "crawl_url"; "webdata" section has "extra", which is not part of the format; member "webdata\.monitor_id" must NOT have fewer than 1 characters$/);
    expect(() => parseFixtures({ webdata: { monitor_id: "<fill in: monitor_id>", crawl_url: "https://example.com" } })).toThrow(
      'fixtures: "webdata.monitor_id" still holds its placeholder from contract-test init; replace each with an id your server knows',
    );
  });
});
