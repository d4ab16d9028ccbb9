// The fixtures this server writes are in the contract-test kit's format, as the kit's schema states it.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, describe, expect, it } from "vitest";
import { checkFixtures } from "../../src/index.js";
import { defaultFixtures, writeFixtures } from "@api-contracts/reference-server";

const require = createRequire(import.meta.url);
const schema = JSON.parse(readFileSync(require.resolve("@api-contracts/contract-tests/fixtures.schema.json"), "utf8")) as object;
const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
const dir = mkdtempSync(path.join(tmpdir(), "reference-kit-fixtures-"));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("fixtures written by the reference server", () => {
  it("the built-in fixtures, world included, validate against the kit's fixtures schema", () => {
    expect(validate(defaultFixtures), JSON.stringify(validate.errors)).toBe(true);
    expect(() => checkFixtures(defaultFixtures)).not.toThrow();
  });

  it("a fixtures file written by writeFixtures validates against the kit's fixtures schema", () => {
    const file = path.join(dir, "fixtures.json");
    writeFixtures(file);
    const written = JSON.parse(readFileSync(file, "utf8")) as unknown;
    expect(validate(written), JSON.stringify(validate.errors)).toBe(true);
  });
});
