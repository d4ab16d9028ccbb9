import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { follow, resolvePointer, walkOperations } from "@api-contracts/contract-core";
import {
  curlSample,
  jsonBodyExample,
  listSampleFiles,
  samplePath,
  sampleCoverage,
  withCodeSamples,
} from "../src/code-samples.mjs";
import { distDir, loadApis, packageDir, samplesDir } from "./helpers.js";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const apis = loadApis();
const allOperations = apis.flatMap(({ api, document }) => walkOperations(document).map((op) => ({ api, document, op })));

describe("code samples", () => {
  it("every operation of both bundles has a TypeScript sample, and every sample has an operation", () => {
    expect(allOperations.length).toBeGreaterThan(0);
    const coverage = sampleCoverage(
      allOperations.map(({ op }) => op.operationId),
      listSampleFiles(samplesDir),
    );
    expect(coverage).toEqual({ missing: [], orphaned: [] });
  });

  it("coverage names an operation without a sample and a sample without an operation", () => {
    expect(sampleCoverage(["checkAccess", "trackUsage"], ["checkAccess.ts", "renamedOp.ts", "notes.md"])).toEqual({
      missing: ["trackUsage"],
      orphaned: ["renamedOp"],
    });
  });

  it("the build refuses a bundle with an operation that has no sample", () => {
    const { api, document } = apis[0]!;
    const extra = structuredClone(document);
    extra.paths["/v9/unsampled"] = { get: { operationId: "operationWithoutSample", responses: {} } };
    expect(() => withCodeSamples(extra, api, samplesDir)).toThrow(/samples\/operationWithoutSample\.ts/);
  });

  it.each(allOperations.map((entry) => [entry.op.operationId, entry] as const))(
    "the TypeScript sample of %s calls that operation through its API's client",
    (_id, { api, op }) => {
      const source = readFileSync(samplePath(samplesDir, op.operationId), "utf8");
      expect(source).toContain(`import { ${api.client!.factory} } from "${api.client!.package}"`);
      expect(source).toContain(`.${op.method}("${op.path}"`);
    },
  );

  it("every operation in the built pages carries the curl sample and its TypeScript sample file", () => {
    for (const { api } of apis) {
      const html = readFileSync(path.join(distDir, `${api.name}.html`), "utf8");
      const definition = html.match(/const __redoc_definition = (.*);\n/)?.[1];
      expect(definition, `${api.name}.html embeds its definition`).toBeDefined();
      for (const op of walkOperations(JSON.parse(definition!))) {
        const samples = op.operation["x-codeSamples"] as { lang: string; source: string }[];
        expect(samples.map((s) => s.lang)).toEqual(["curl", "TypeScript"]);
        expect(samples[0]!.source).toMatch(/^curl /);
        expect(samples[1]!.source).toBe(readFileSync(samplePath(samplesDir, op.operationId), "utf8").trimEnd());
      }
    }
  });

  it("the samples, the landing page's quick starts and the README example type-check against the clients", async () => {
    const readme = readFileSync(path.join(packageDir, "README.md"), "utf8");
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThan(0);
    const dir = path.join(distDir, "typecheck");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    blocks.forEach((block, i) => writeFileSync(path.join(dir, `readme-${i}.ts`), block));
    writeFileSync(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: "../../samples/tsconfig.json",
        include: ["../../samples/*.ts", "../../quickstart/*.ts", "./*.ts"],
      }),
    );
    const tsc = require.resolve("typescript/bin/tsc");
    const result = await run(process.execPath, [tsc, "-p", path.join(dir, "tsconfig.json"), "--pretty", "false"]).then(
      () => "",
      (error: { stdout?: string; message: string }) => error.stdout || error.message,
    );
    expect(result).toBe("");
  });
});

describe("curl samples", () => {
  interface Captured {
    method: string;
    url: string;
    authorization: string | undefined;
    contentType: string | undefined;
    body: string;
  }
  let captured: Captured[] = [];
  const capture = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      captured.push({
        method: req.method ?? "",
        url: req.url ?? "",
        authorization: req.headers.authorization,
        contentType: req.headers["content-type"],
        body,
      });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  let base = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => capture.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(capture.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => capture.close(resolve));
  });

  it("builds the check command from the operation: method, URL, the key from the API's variable and the first named example", () => {
    const { api, document } = apis.find((a) => a.api.name === "entitlements")!;
    const op = walkOperations(document).find((o) => o.operationId === "checkAccess")!;
    const command = curlSample(document, op, api);
    expect(command).toMatch(new RegExp(`^curl '${document.servers[0].url}/v1/balances\\.check'`));
    expect(command).toContain(`-H "Authorization: Bearer $ENTITLEMENTS_API_KEY"`);
    const media = resolvePointer(document, op.requestBody!.media.find((m) => m.mediaType === "application/json")!.pointer) as any;
    const named = follow(document, Object.values(media.examples)[0], "").node as { value: unknown };
    const body = command.match(/--data-raw '([\s\S]*)'$/)?.[1];
    expect(JSON.parse(body!)).toEqual(named.value);
  });

  it.each(allOperations.map((entry) => [entry.op.operationId, entry] as const))(
    "the curl sample of %s sends that request when a shell runs it",
    async (_id, { api, document, op }) => {
      captured = [];
      const server = String(document.servers[0].url).replace(/\/+$/, "");
      const command = curlSample(document, op, api).replace(`'${server}`, `'${base}`);
      await run("sh", ["-c", `${command} -sS -o /dev/null`], {
        env: { PATH: process.env.PATH ?? "", [api.key.variable]: "key_from_the_environment" },
      });
      expect(captured).toHaveLength(1);
      const request = captured[0]!;
      expect(request.method).toBe(op.method);
      const [pathname, search = ""] = request.url.split("?");
      const template = new RegExp(`^${op.path.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, "[^/{}]+")}$`);
      expect(pathname).toMatch(template);
      const query = new URLSearchParams(search);
      for (const parameter of op.parameters.filter((p) => p.in === "query" && p.required)) {
        expect(query.get(parameter.name), `query ${parameter.name}`).not.toBeNull();
      }
      expect(request.authorization).toBe("Bearer key_from_the_environment");
      const example = jsonBodyExample(document, op);
      if (example) {
        expect(request.contentType).toBe("application/json");
        expect(example.found).toBe(true);
        expect(JSON.parse(request.body)).toEqual(example.value);
      } else {
        expect(request.body).toBe("");
      }
    },
  );
});
