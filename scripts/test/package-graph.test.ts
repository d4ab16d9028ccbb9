import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { analyse, findCycles, referencesIn } from "../package-graph.mjs";

describe("the repository's package graph", () => {
  it("has no cycle, no undeclared sibling import, no path out of a package and no hidden import", () => {
    const { problems, packages } = analyse();
    expect(packages.length).toBeGreaterThan(5);
    expect(problems).toEqual([]);
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
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), text);
    }
    return root;
  }
  const manifest = (name: string, deps: Record<string, string> = {}, scripts: Record<string, string> = {}) =>
    JSON.stringify({ name, devDependencies: deps, scripts });

  it("reports a cycle that only tests close", () => {
    const root = workspace({
      "package.json": JSON.stringify({ workspaces: ["packages/*"] }),
      "packages/a/package.json": manifest("a", { b: "1" }),
      "packages/b/package.json": manifest("b", { a: "1" }),
      "packages/b/test/x.test.ts": `import { thing } from "a";\n`,
    });
    expect(analyse(root).problems).toContain("cycle: a -> b -> a");
  });

  it("reports an import of a sibling the package.json does not declare", () => {
    const root = workspace({
      "package.json": JSON.stringify({ workspaces: ["packages/*"] }),
      "packages/a/package.json": manifest("a"),
      "packages/b/package.json": manifest("b"),
      "packages/b/bench/run.ts": `const a = await import("a/sub");\n`,
    });
    expect(analyse(root).problems).toEqual([`${path.join("packages", "b", "bench", "run.ts")}:1: imports a, which b's package.json does not declare`]);
  });

  it("reports relative paths and scripts that leave the package, and computed imports", () => {
    const root = workspace({
      "package.json": JSON.stringify({ workspaces: ["packages/*"] }),
      "packages/a/package.json": manifest("a", {}, { build: "node ../b/scripts/gen.mjs" }),
      "packages/a/src/index.ts": [
        `import { x } from "../../b/src/x.js";`,
        `const name = "b";`,
        `await import(name);`,
        `const url = new URL("../../../node_modules/", import.meta.url);`,
        `import { y } from "./y.js";`,
      ].join("\n"),
    });
    const problems = analyse(root).problems;
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
      ].join("\n"),
    );
    expect(refs.map((r: { specifier?: string; hidden?: boolean }) => r.specifier ?? "hidden")).toEqual([
      "p1",
      "p2",
      "p3",
      "p4/package.json",
      "p5",
      "p6",
      "p7",
      "@scope/p8/",
      "hidden",
    ]);
  });

  it("finds one cycle per strongly connected group", () => {
    const edges = new Map<string, Set<string>>([
      ["a", new Set(["b"])],
      ["b", new Set(["c"])],
      ["c", new Set(["a"])],
      ["d", new Set(["a"])],
    ]);
    expect(findCycles(edges)).toEqual([["a", "b", "c", "a"]]);
  });
});
