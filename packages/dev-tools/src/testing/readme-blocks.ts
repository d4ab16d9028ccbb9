// The check of a package whose README shows programs that print: each ```ts block is run as printed
// and must print what the comment after its `console.log(...);` says.
import { execFile } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

/**
 * Registers the README tests of the package at `packageDir`: it shows at least `minimum` ```ts
 * blocks, and each one, run with tsx inside the package (so the package's own name resolves to its
 * build), prints exactly what its `console.log(...); // <output>` comment promises.
 */
export function readmeBlockTests(packageDir: string, minimum: number): void {
  const blocks = [...readFileSync(path.join(packageDir, "README.md"), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const files = blocks.map((_, i) => path.join(packageDir, `.readme-block-${i + 1}.test-tmp.mts`));
  describe("README", () => {
    afterAll(() => files.forEach((file) => rmSync(file, { force: true })));

    it(`shows at least ${minimum} ts example(s)`, () => expect(blocks.length).toBeGreaterThanOrEqual(minimum));

    it.each(blocks.map((code, i) => [i + 1, code] as const))("ts example %i runs as printed and prints what its comment says", async (number, code) => {
      const promised = /console\.log\(.*\);\s*\/\/ (.+)$/m.exec(code)?.[1];
      expect(promised, "a console.log(...); // <output> line").toBeDefined();
      writeFileSync(files[number - 1]!, code);
      const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", files[number - 1]!], { cwd: packageDir, encoding: "utf8" });
      expect(stdout.trim()).toBe(promised);
    });
  });
}
