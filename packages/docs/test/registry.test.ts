import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { API_DIRS_VARIABLE, getApi, listApis, readApiFolder, registerApi, walkOperations, type ApiDefinition } from "@api-contracts/contract-core";
import { THIRD_API, THIRD_API_DIR } from "@api-contracts/dev-tools/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDocsServer, type DocsServer } from "../server.mjs";
import { buildDocs } from "../src/build.mjs";
import { distDir } from "./helpers.js";

// The third API is named by its folder alone, as a user would: nothing in the docs knows it.
process.env[API_DIRS_VARIABLE] = THIRD_API_DIR;

/** The Redoc definition a page embeds. */
const definitionOf = (html: string) => JSON.parse(html.match(/const __redoc_definition = (.*);\n/)![1]!);

describe("a third API named by CONTRACT_API_DIRS, built with the others", () => {
  let dir = "";
  const read = (file: string) => readFileSync(path.join(dir, file), "utf8");

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "docs-third-api-"));
    buildDocs({ outDir: dir });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("gets a reference page, its description and a landing card beside the others, with no docs change", () => {
    for (const { name } of listApis()) expect(existsSync(path.join(dir, `${name}.html`)), name).toBe(true);
    expect(JSON.parse(read(`${THIRD_API}.openapi.json`)).info.title).toBe("Notes API");
    const landing = read("index.html");
    expect(landing).toContain(`<article class="api" id="${THIRD_API}">`);
    expect(landing).toContain(`href="${THIRD_API}.html"`);
    expect(landing).toContain(`href="${THIRD_API}.openapi.json"`);
    expect(landing).toContain("Create a note");
    expect(landing).toContain("http://127.0.0.1:4012");
    expect(landing).toContain("Entitlements API, Web Data API and Notes API");
  });

  it("without a typed client, its samples and its quick start are curl, the key read from its own variable", () => {
    const [op] = walkOperations(definitionOf(read(`${THIRD_API}.html`)));
    expect(op!.operation["x-codeSamples"]).toEqual([{ lang: "curl", label: "curl", source: `curl 'http://127.0.0.1:4012/v1/notes' \\\n  -H "Authorization: Bearer $NOTES_API_KEY"` }]);
    expect(read("index.html")).toContain("export NOTES_API_KEY=nk_test\ncurl &#39;http://127.0.0.1:4012/v1/notes&#39;");
  });
});

describe("a third API the docs were built without, served by the docs server", () => {
  let dir = "";
  let docs: DocsServer;
  const get = async (file: string) => {
    const answer = await fetch(`${docs.url}/${file}`);
    return { status: answer.status, type: answer.headers.get("content-type"), text: await answer.text() };
  };

  beforeAll(async () => {
    // The built docs of the spec's APIs only, as `npm run build` writes them.
    dir = mkdtempSync(path.join(tmpdir(), "docs-served-third-api-"));
    for (const file of ["index.html", "api-console.js", ...["entitlements", "webdata"].flatMap((name) => [`${name}.html`, `${name}.openapi.json`, `${name}.openapi.yaml`])]) {
      cpSync(path.join(distDir, file), path.join(dir, file));
    }
    docs = await startDocsServer({ port: 0, root: dir, targets: { [THIRD_API]: { mock: "http://127.0.0.1:5012" } } });
  });
  afterAll(async () => {
    await docs?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("makes its reference page from a built one: its title, its description with samples and console links, and its console's facts", async () => {
    const page = await get(`${THIRD_API}.html`);
    expect(page.status).toBe(200);
    expect(page.type).toBe("text/html; charset=utf-8");
    expect(page.text).toContain("<title>Notes API reference</title>");
    // Redoc renders it in the browser: no markup of the page it was made from is left.
    expect(page.text).toContain('<div id="redoc"></div>');
    expect(page.text).not.toContain("Entitlements API reference");
    const definition = definitionOf(page.text);
    expect(definition.info.title).toBe("Notes API");
    const samples = walkOperations(definition).map((op) => (op.operation["x-codeSamples"] as { source: string }[])[0]!.source);
    // The pages follow the ports: the running mock, not the folder's.
    expect(samples[0]).toBe(`curl 'http://127.0.0.1:5012/v1/notes' \\\n  -H "Authorization: Bearer $NOTES_API_KEY"`);
    expect(definition.paths["/v1/notes"].get.description).toContain('data-api-console="listNotes"');
    const data = JSON.parse(page.text.match(/<script id="api-console-data" type="application\/json">(.*?)<\/script>/)![1]!);
    const { bundle: _bundle, ...facts } = getApi(THIRD_API);
    expect(data.api).toEqual(facts);
    expect(data.document.info.title).toBe("Notes API");
  });

  it("serves its description and lists it on the landing page with the others", async () => {
    const description = await get(`${THIRD_API}.openapi.json`);
    expect(description.status).toBe(200);
    expect(JSON.parse(description.text).info.title).toBe("Notes API");
    const landing = await get("");
    expect(landing.text).toContain("Entitlements API, Web Data API and Notes API");
    expect(landing.text).toContain(`href="${THIRD_API}.html"`);
    expect(landing.text).toContain(`href="${THIRD_API}.openapi.json"`);
    expect(landing.text).toContain('href="entitlements.openapi.yaml"');
    expect((await get("index.html")).text).toBe(landing.text);
  });

  it("serves the built pages as they are", async () => {
    expect((await get("entitlements.html")).text).toBe(readFileSync(path.join(dir, "entitlements.html"), "utf8"));
  });
});

describe("a registered API with a typed client", () => {
  const document = { ...JSON.parse(readFileSync(path.join(THIRD_API_DIR, "openapi.json"), "utf8")), info: { title: "Tiny API", version: "0.0.7" } };
  const tiny: ApiDefinition = {
    ...readApiFolder(THIRD_API_DIR),
    name: "tiny",
    title: "Tiny API",
    bundle: { document },
    client: { package: "@example/tiny-client", factory: "createTinyClient" },
  };
  const operations = walkOperations(document).map((op) => op.operationId);
  let dir = "";
  let unregister = () => {};
  beforeAll(() => {
    unregister = registerApi(tiny);
    dir = mkdtempSync(path.join(tmpdir(), "docs-client-api-"));
    mkdirSync(path.join(dir, "quickstart"));
  });
  afterAll(() => {
    unregister();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the build refuses it without a TypeScript sample for each operation, naming the files to write", () => {
    expect(() => buildDocs({ apis: [tiny], outDir: path.join(dir, "refused"), samplesDir: path.join(dir, "no-samples") })).toThrow(
      `no TypeScript sample for ${operations.sort().map((id) => `samples/${id}.ts`).join(", ")}`,
    );
  });

  it("the build refuses it without a quick start, naming the file to write", () => {
    mkdirSync(path.join(dir, "samples"));
    for (const id of operations) writeFileSync(path.join(dir, "samples", `${id}.ts`), `import { createTinyClient } from "@example/tiny-client";\n`);
    expect(() => buildDocs({ apis: [tiny], outDir: path.join(dir, "refused"), samplesDir: path.join(dir, "samples"), quickstartDir: path.join(dir, "quickstart") })).toThrow(/quickstart\/tiny\.ts/);
  });
});
