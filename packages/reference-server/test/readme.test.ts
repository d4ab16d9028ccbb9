import { execFile } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "..");
const readme = readFileSync(path.join(root, "README.md"), "utf8");
const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];

describe("README", () => {
  it("has a TypeScript example", () => {
    expect(example).toContain("startReferenceServer");
  });

  it("the example type-checks against the built package and prints what its comment says", async () => {
    // Written inside the package so that `@api-contracts/reference-server` resolves to this package.
    const file = path.join(root, `.readme-example-${process.pid}.mts`);
    writeFileSync(file, example!);
    try {
      const program = ts.createProgram([file], {
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ["node"],
      });
      const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      expect(diagnostics).toEqual([]);
      const tsx = path.resolve(root, "../../node_modules/tsx/dist/cli.mjs");
      const { stdout } = await run(process.execPath, [tsx, file], { cwd: root });
      const promised = /console\.log\(.*\); \/\/ (.*)/.exec(example!)![1]!;
      expect(stdout.trim()).toBe(promised);
    } finally {
      rmSync(file, { force: true });
    }
  }, 120_000);
});
