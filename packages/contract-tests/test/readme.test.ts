import { execFile, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import { createRequire } from "node:module";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer } from "@api-contracts/mock-server";

const require = createRequire(import.meta.url);
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const readme = readFileSync(path.join(packageDir, "README.md"), "utf8");
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
// Written inside the package so that the examples resolve the package by its own name.
const exampleFiles = blocks.map((_, i) => path.join(packageDir, "test", `.readme-example-${i}.mts`));

describe("README", () => {
  let mock: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    mock = await startMockServer({ service: "webdata" });
    blocks.forEach((block, i) => writeFileSync(exampleFiles[i]!, block.replace("http://127.0.0.1:4010", mock.url)));
  });
  afterAll(async () => {
    for (const file of exampleFiles) rmSync(file, { force: true });
    await mock?.close();
  });

  it("every ts example type-checks against the published types", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    const tsc = spawnSync(
      process.execPath,
      [require.resolve("typescript/bin/tsc"), "--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--skipLibCheck", "--types", "node", ...exampleFiles],
      { encoding: "utf8" },
    );
    expect(tsc.status, tsc.stdout).toBe(0);
  });

  it("the shortest example runs against a mock and prints the totals of a passing run", async () => {
    expect(blocks[0]).toContain('baseUrl: "http://127.0.0.1:4010"');
    // Asynchronous, because the mock answers from this very process.
    const run = await promisify(execFile)(process.execPath, ["--import", "tsx", exampleFiles[0]!], { encoding: "utf8", cwd: packageDir });
    expect(run.stdout.trim(), run.stderr).toMatch(/^[1-9]\d* passed, 0 failed$/);
  });
});
