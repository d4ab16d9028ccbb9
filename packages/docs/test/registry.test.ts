import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { entitlementsWording, listApis, registerApi, walkOperations, type ApiDefinition } from "@api-contracts/contract-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDocs } from "../src/build.mjs";
import { packageDir } from "./helpers.js";

const tiny: ApiDefinition = {
  name: "tiny",
  title: "Tiny API",
  bundle: {
    document: {
      openapi: "3.1.0",
      info: { title: "Tiny API", version: "0.0.7", summary: "Answers pings." },
      servers: [{ url: "https://tiny.example.com" }],
      security: [{ bearer: [] }],
      paths: {
        "/v1/ping": {
          get: { operationId: "pingTiny", summary: "Ping the tiny service", responses: { "204": { description: "Alive." } } },
        },
      },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    },
  },
  mockPort: 4099,
  keyPrefix: "tiny_",
  keyEnv: "TINY_API_KEY",
  client: { package: "@example/tiny-client", factory: "createTinyClient" },
  wording: entitlementsWording,
};
const tinySample = `import { createTinyClient } from "@example/tiny-client";\n\nawait createTinyClient().GET("/v1/ping");\n`;

describe("a third API in the registry", () => {
  let dir = "";
  let unregister = () => {};
  const out = () => path.join(dir, "site");
  const read = (file: string) => readFileSync(path.join(out(), file), "utf8");

  beforeAll(() => {
    unregister = registerApi(tiny);
    dir = mkdtempSync(path.join(tmpdir(), "docs-third-api-"));
    for (const folder of ["samples", "quickstart"]) cpSync(path.join(packageDir, folder), path.join(dir, folder), { recursive: true });
    writeFileSync(path.join(dir, "samples", "pingTiny.ts"), tinySample);
    writeFileSync(path.join(dir, "quickstart", "tiny.ts"), tinySample);
    buildDocs({ outDir: out(), samplesDir: path.join(dir, "samples"), quickstartDir: path.join(dir, "quickstart") });
  });
  afterAll(() => {
    unregister();
    rmSync(dir, { recursive: true, force: true });
  });

  it("gets a reference page, a download and a landing card beside the others, with no docs change", () => {
    for (const { name } of listApis()) expect(existsSync(path.join(out(), `${name}.html`)), name).toBe(true);
    expect(JSON.parse(read("tiny.openapi.json")).info.title).toBe("Tiny API");
    const landing = read("index.html");
    expect(landing).toContain('<article class="api" id="tiny">');
    expect(landing).toContain('href="tiny.html"');
    expect(landing).toContain('href="tiny.openapi.json"');
    expect(landing).toContain("Ping the tiny service");
    expect(landing).toContain("http://127.0.0.1:4099");
    expect(landing).toContain("<code>@example/tiny-client</code>");
    expect(landing).toContain("Entitlements API, Web Data API and Tiny API");
  });

  it("gets curl and TypeScript samples on its operations, the key read from its own variable", () => {
    const definition = JSON.parse(read("tiny.html").match(/const __redoc_definition = (.*);\n/)![1]!);
    const [op] = walkOperations(definition);
    const [curl, typescript] = op!.operation["x-codeSamples"] as { lang: string; source: string }[];
    expect(curl!.source).toBe(`curl 'https://tiny.example.com/v1/ping' \\\n  -H "Authorization: Bearer $TINY_API_KEY"`);
    expect(typescript!.source).toBe(tinySample.trimEnd());
  });

  it("the build refuses it without a quick start, naming the file to write", () => {
    rmSync(path.join(dir, "quickstart", "tiny.ts"));
    expect(() =>
      buildDocs({ outDir: path.join(dir, "refused"), samplesDir: path.join(dir, "samples"), quickstartDir: path.join(dir, "quickstart") }),
    ).toThrow(/quickstart\/tiny\.ts/);
  });

  it("the build refuses it without its operation's sample, naming the file to write", () => {
    expect(() => buildDocs({ apis: [tiny], outDir: path.join(dir, "refused"), samplesDir: path.join(dir, "no-samples") })).toThrow(/samples\/pingTiny\.ts/);
  });
});
