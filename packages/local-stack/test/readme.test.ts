import { execFile } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const example = new URL("../readme-example.test-tmp.mts", import.meta.url);

afterAll(() => rmSync(example, { force: true }));

describe("README", () => {
  it("the ts example runs and prints what its comment says", async () => {
    const code = /```ts\n([\s\S]*?)```/.exec(readFileSync(new URL("../README.md", import.meta.url), "utf8"))![1]!;
    const promised = /console\.log\(.*\); \/\/ (.+)$/m.exec(code)![1];
    writeFileSync(example, code);
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", fileURLToPath(example)], { cwd: packageDir });
    expect(stdout.trim()).toBe(promised);
  });
});
