import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const specDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

describe("bundles", () => {
  it("the committed bundles in spec/dist match a fresh bundle of the sources", () => {
    const run = () =>
      execFileSync(process.execPath, [path.join(specDir, "scripts/bundle.mjs"), "--check"], {
        cwd: specDir,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    expect(run).not.toThrow();
  });

  for (const api of ["entitlements", "webdata"]) {
    it(`${api}: the JSON bundle is the YAML bundle, as OpenAPI 3.1 with the 2020-12 dialect`, async () => {
      const { parse } = await import("yaml");
      const yaml = parse(readFileSync(path.join(specDir, `dist/${api}.openapi.yaml`), "utf8"));
      const json = JSON.parse(readFileSync(path.join(specDir, `dist/${api}.openapi.json`), "utf8"));
      expect(json).toEqual(yaml);
      expect(json.openapi).toMatch(/^3\.1\./);
      expect(json.jsonSchemaDialect).toBe("https://json-schema.org/draft/2020-12/schema");
    });
  }
});
