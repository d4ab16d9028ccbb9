import { execFile } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const example = new URL("../readme-example.test-tmp.mts", import.meta.url);
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const examples = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);

afterAll(() => rmSync(example, { force: true }));

describe("README", () => {
  it("has its ts examples", () => expect(examples.length).toBeGreaterThanOrEqual(2));

  it.each(examples.map((code, i) => [i + 1, code]))("ts example %i runs as printed and prints what its comment says", async (_, code) => {
    const promised = /console\.log\(.*\);\s*\/\/ (.+)$/m.exec(code as string)?.[1];
    expect(promised).toBeDefined();
    writeFileSync(example, code as string);
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", fileURLToPath(example)], { cwd: packageDir });
    expect(stdout.trim()).toBe(promised);
  });
});
