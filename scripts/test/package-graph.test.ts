import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { analyse, findCycles, LAYERS, layerRule, referencesIn, repoRoot } from "../package-graph.mjs";

describe("the repository's package graph", () => {
  const { problems, packages, files } = analyse();
  const isLayerProblem = (problem: string) => problem.startsWith("layers: ");
  const isCircle = (problem: string) => problem.startsWith("import circle: ");

  it("puts every package in a layer, and no package depends on a layer it must not", () => {
    expect(packages.length).toBeGreaterThan(5);
    expect(problems.filter(isLayerProblem)).toEqual([]);
  });

  it("has no import circle between files", () => {
    expect(files.size).toBeGreaterThan(100);
    expect(problems.filter(isCircle)).toEqual([]);
  });

  it("has no cycle, no undeclared sibling import, no path out of a package and no hidden import", () => {
    expect(problems.filter((problem: string) => !isLayerProblem(problem) && !isCircle(problem))).toEqual([]);
  });

  it("shows its layers in the README as the check reads them", () => {
    const lines = readFileSync(path.join(repoRoot, "README.md"), "utf8").split("\n");
    const header = lines.indexOf("| layer | packages | what it is | rule |");
    expect(header).toBeGreaterThan(0);
    const end = lines.findIndex((line, i) => i > header && !line.startsWith("|"));
    expect(lines.slice(header + 2, end)).toEqual(
      LAYERS.map((layer: { name: string; packages: string[]; role: string }) => `| ${layer.name} | ${layer.packages.map((name) => `\`${name}\``).join(", ")} | ${layer.role} | ${layerRule(layer)} |`),
    );
  });
});

describe("the graph check itself", () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  function workspace(files: Record<string, string>): string {
    const root = mkdtempSync(path.join(tmpdir(), "graph-"));
    roots.push(root);
    for (const [file, text] of Object.entries({ "package.json": JSON.stringify({ workspaces: ["packages/*"] }), ...files })) {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), text);
    }
    return root;
  }
  const manifest = (name: string, deps: Record<string, string> = {}, scripts: Record<string, string> = {}) =>
    JSON.stringify({ name, devDependencies: deps, scripts });
  // Fixtures about the rules between packages and files put every package in one layer with no rule.
  const oneLayer = [{ name: "all", packages: ["*"], role: "everything" }];

  it("reports a cycle that only tests close", () => {
    const root = workspace({
      "packages/a/package.json": manifest("a", { b: "1" }),
      "packages/b/package.json": manifest("b", { a: "1" }),
      "packages/b/test/x.test.ts": `import { thing } from "a";\n`,
    });
    expect(analyse(root, oneLayer).problems).toContain("cycle: a -> b -> a");
  });

  it("reports an import of a sibling the package.json does not declare", () => {
    const root = workspace({
      "packages/a/package.json": manifest("a"),
      "packages/b/package.json": manifest("b"),
      "packages/b/bench/run.ts": `const a = await import("a/sub");\n`,
    });
    expect(analyse(root, oneLayer).problems).toEqual([`${path.join("packages", "b", "bench", "run.ts")}:1: imports a, which b's package.json does not declare`]);
  });

  it("reports relative paths and scripts that leave the package, and computed imports", () => {
    const root = workspace({
      "packages/a/package.json": manifest("a", {}, { build: "node ../b/scripts/gen.mjs" }),
      "packages/a/src/index.ts": [
        `import { x } from "../../b/src/x.js";`,
        `const name = "b";`,
        `await import(name);`,
        `const url = new URL("../../../node_modules/", import.meta.url);`,
        `import { y } from "./y.js";`,
      ].join("\n"),
    });
    const problems = analyse(root, oneLayer).problems;
    expect(problems).toHaveLength(4);
    expect(problems.join("\n")).toMatch(/script "build" reaches outside/);
    expect(problems.join("\n")).toMatch(/index\.ts:1: "\.\.\/\.\.\/b\/src\/x\.js" reaches outside a/);
    expect(problems.join("\n")).toMatch(/index\.ts:3: import\(\) of a computed specifier/);
    expect(problems.join("\n")).toMatch(/index\.ts:4: "\.\.\/\.\.\/\.\.\/node_modules\/" reaches outside a/);
  });

  it("reads every form of reference", () => {
    const refs = referencesIn(
      "x.ts",
      [
        `import a from "p1";`,
        `export * from "p2";`,
        `const b = require("p3");`,
        `require.resolve("p4/package.json");`,
        `import.meta.resolve("p5");`,
        `await import("p6");`,
        `import type { T } from "p7";`,
        "require.resolve(`@scope/p8/${name}.json`);",
        "require(`${base}/index.js`);",
        `type U = import("p9").U;`,
      ].join("\n"),
    );
    expect(refs.map((r: { specifier?: string; kind: string }) => `${r.kind} ${r.specifier ?? "hidden"}`)).toEqual([
      "import p1",
      "import p2",
      "require p3",
      "resolve p4/package.json",
      "resolve p5",
      "import() p6",
      "import p7",
      "resolve @scope/p8/",
      "require hidden",
      "import p9",
    ]);
  });

  it("finds cycles that together name every member of each strongly connected group, each in order", () => {
    const edges = new Map<string, Set<string>>([
      ["a", new Set(["b"])],
      ["b", new Set(["c", "d"])],
      ["c", new Set(["a"])],
      ["d", new Set(["b"])],
      ["e", new Set(["a", "e"])],
      ["f", new Set(["a"])],
    ]);
    expect(findCycles(edges)).toEqual([
      ["a", "b", "c", "a"],
      ["d", "b", "d"],
      ["e", "e"],
    ]);
  });

  describe("import circles between files", () => {
    it("names the files of a circle in order, with the line of each import, across the forms that load a module", () => {
      const root = workspace({
        "packages/a/package.json": manifest("a"),
        // `.js` names the `.ts` source, a folder its index, a bare name its `.ts` file, and a type-only import counts.
        "packages/a/src/one.ts": `import { two } from "./two.js";\nexport const one = two;\n`,
        "packages/a/src/two.ts": `\nimport type { Three } from "./three";\nexport const two = 2;\n`,
        "packages/a/src/three/index.ts": `export type Three = 3;\n\n\nexport * from "../four.js";\n`,
        "packages/a/src/four.ts": `export const four = () => import("./one");\n`,
      });
      expect(analyse(root, oneLayer).problems).toEqual([
        `import circle: ${["src/four.ts:1", "src/one.ts:1", "src/two.ts:2", "src/three/index.ts:4", "src/four.ts"].map((file) => path.join("packages", "a", file)).join(" -> ")}`,
      ]);
    });

    it("follows require between CommonJS files, and a test reaching into the sources it tests", () => {
      const root = workspace({
        "packages/a/package.json": manifest("a"),
        "packages/a/scripts/x.cjs": `module.exports = require("./y.cjs");\n`,
        "packages/a/scripts/y.cjs": `require("./x.cjs");\n`,
        "packages/a/src/run.mts": `import { helper } from "../test/helper.mjs";\n`,
        "packages/a/test/helper.mts": `export { run } from "../src/run.mjs";\n`,
      });
      expect(analyse(root, oneLayer).circles).toEqual([
        ["scripts/x.cjs", "scripts/y.cjs", "scripts/x.cjs"].map((file) => path.join("packages", "a", file)),
        ["src/run.mts", "test/helper.mts", "src/run.mts"].map((file) => path.join("packages", "a", file)),
      ]);
    });

    it("does not count names that load nothing: require.resolve, import.meta.resolve and new URL", () => {
      const root = workspace({
        "packages/a/package.json": manifest("a"),
        "packages/a/src/x.ts": `import { y } from "./y.js";\n`,
        "packages/a/src/y.ts": [`require.resolve("./x.js");`, `import.meta.resolve("./x.js");`, `new URL("./x.js", import.meta.url);`].join("\n"),
      });
      expect(analyse(root, oneLayer).problems).toEqual([]);
    });
  });

  describe("layers", () => {
    const scoped = (name: string) => `@api-contracts/${name}`;
    const pkg = (name: string, fields: Record<string, string[]> = {}, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ name: scoped(name), ...extra, ...Object.fromEntries(Object.entries(fields).map(([field, deps]) => [field, Object.fromEntries(deps.map((dep) => [scoped(dep), "0.1.0"]))])) });

    it("reports a server or a client that depends on the kit or the proxy in any field or import", () => {
      const root = workspace({
        "packages/kit/package.json": pkg("contract-tests"),
        "packages/proxy/package.json": pkg("contract-proxy"),
        "packages/mock/package.json": pkg("mock-server", { peerDependencies: ["contract-proxy"] }),
        "packages/reference/package.json": pkg("reference-server", { devDependencies: ["contract-tests"] }),
        "packages/reference/test/kit.test.ts": `\nimport { runContractTests } from "@api-contracts/contract-tests";\n`,
        "packages/client/package.json": pkg("webdata-client", { optionalDependencies: ["contract-proxy"] }),
        "packages/runtime/package.json": pkg("client-runtime", { dependencies: ["contract-tests"] }),
      });
      expect(analyse(root).problems.sort()).toEqual([
        "layers: @api-contracts/client-runtime (clients) depends on @api-contracts/contract-tests (tools): dependencies",
        "layers: @api-contracts/mock-server (servers) depends on @api-contracts/contract-proxy (tools): peerDependencies",
        "layers: @api-contracts/reference-server (servers) depends on @api-contracts/contract-tests (tools): devDependencies; imported at test/kit.test.ts:2",
        "layers: @api-contracts/webdata-client (clients) depends on @api-contracts/contract-proxy (tools): optionalDependencies",
      ]);
    });

    it("reports a server that would install the kit through another package, and lets the kit depend on servers and clients", () => {
      const root = workspace({
        "packages/kit/package.json": pkg("contract-tests", { dependencies: ["entitlements-client"] }),
        "packages/proxy/package.json": pkg("contract-proxy", { devDependencies: ["reference-server", "contract-tests"] }),
        "packages/docs/package.json": pkg("docs", { dependencies: ["contract-tests"] }),
        "packages/reference/package.json": pkg("reference-server", { dependencies: ["entitlements-client", "docs"] }),
        "packages/client/package.json": pkg("entitlements-client"),
      });
      expect(analyse(root).problems).toEqual([
        "layers: @api-contracts/reference-server (servers) installs @api-contracts/contract-tests (tools) through @api-contracts/reference-server -> @api-contracts/docs -> @api-contracts/contract-tests",
      ]);
    });

    it("reports dev-tools as a dependency or peer of a published package, and allows it as a devDependency or in a private one", () => {
      const root = workspace({
        "packages/dev-tools/package.json": pkg("dev-tools", {}, { private: true }),
        "packages/core/package.json": pkg("contract-core", { dependencies: ["dev-tools"] }),
        "packages/mock/package.json": pkg("mock-server", { peerDependencies: ["dev-tools"], devDependencies: ["dev-tools"] }),
        "packages/client/package.json": pkg("client-runtime", { devDependencies: ["dev-tools"] }),
        "packages/conformance/package.json": pkg("conformance", { dependencies: ["dev-tools"] }, { private: true }),
      });
      expect(analyse(root).problems.sort()).toEqual([
        "layers: @api-contracts/contract-core names @api-contracts/dev-tools in dependencies; @api-contracts/dev-tools (build support) is only ever a devDependency of a published package",
        "layers: @api-contracts/mock-server names @api-contracts/dev-tools in peerDependencies; @api-contracts/dev-tools (build support) is only ever a devDependency of a published package",
      ]);
    });

    it("reports a package that no layer holds", () => {
      const root = workspace({
        "packages/grpc/package.json": pkg("grpc-server"),
        "packages/client/package.json": pkg("billing-client"),
      });
      expect(analyse(root).problems).toEqual(["layers: @api-contracts/grpc-server is in no layer; add it to LAYERS in scripts/package-graph.mjs"]);
    });
  });
});
