import { execFileSync, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const examples = [...readFileSync(path.join(packageDir, "README.md"), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
// Inside the package, so that the examples resolve the package by its own name.
const files = examples.map((example, i) => {
  const file = path.join(packageDir, "test", `.readme-example-${i}.mts`);
  writeFileSync(file, example);
  return file;
});

describe("README", () => {
  afterAll(() => files.forEach((file) => rmSync(file, { force: true })));

  it("has the usage example, the webhook example and the ./server example", () => {
    expect(examples.length).toBe(3);
  });

  it("the examples type-check against the published types", () => {
    const tsc = spawnSync(
      process.execPath,
      [require.resolve("typescript/bin/tsc"), "--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--skipLibCheck", "--types", "node", ...files],
      { encoding: "utf8" },
    );
    expect(tsc.status, tsc.stdout).toBe(0);
  });

  examples.forEach((example, i) => {
    it(`example ${i + 1} prints what its last comment says`, () => {
      const promised = example.trim().split("\n").at(-1)!.replace(/^\/\/ /, "");
      const printed = execFileSync(process.execPath, ["--import", "tsx", files[i]!], { encoding: "utf8", cwd: packageDir });
      expect(printed.trim()).toBe(promised);
    });
  });
});
