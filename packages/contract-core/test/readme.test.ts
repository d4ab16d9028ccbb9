import { execFileSync, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const example = /```ts\n([\s\S]*?)```/.exec(readFileSync(path.join(packageDir, "README.md"), "utf8"))![1]!;
// Inside the package, so that the example resolves the package by its own name.
const file = path.join(packageDir, "test", ".readme-example.mts");
writeFileSync(file, example);

describe("README", () => {
  afterAll(() => rmSync(file, { force: true }));

  it("the example type-checks against the published types", () => {
    const tsc = spawnSync(
      process.execPath,
      [require.resolve("typescript/bin/tsc"), "--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--skipLibCheck", "--types", "node", file],
      { encoding: "utf8" },
    );
    expect(tsc.status, tsc.stdout).toBe(0);
  });

  it("the example prints what its last comment says", () => {
    const promised = example.trim().split("\n").at(-1)!.replace(/^\/\/ /, "");
    const printed = execFileSync(process.execPath, ["--import", "tsx", file], { encoding: "utf8", cwd: packageDir });
    expect(printed.trim()).toBe(promised);
  });
});
