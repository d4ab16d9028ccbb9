// `npm start` as a user drives it: its help, a flag it does not know, and its port variables.
import { execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { listApis } from "@api-contracts/contract-core";
import { repoRoot } from "../package-graph.mjs";

const run = promisify(execFile);
const start = path.join(repoRoot, "scripts", "start.mjs");
const startWith = (args: string[]) =>
  run(process.execPath, [start, ...args], { encoding: "utf8" }).then(
    (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );

describe("npm start", () => {
  it("--help names every flag and port variable, one per API of the registry, and exits 0", async () => {
    const { code, stdout, stderr } = await startWith(["--help"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    for (const api of listApis()) expect(stdout).toMatch(new RegExp(`--${api.name}-port N .*variable ${api.name.toUpperCase()}_PORT; default ${api.mockPort}`));
    expect(stdout).toMatch(/--docs-port N .*variable DOCS_PORT; default 4000/);
    expect(stdout).toMatch(/--host H .*variable HOST/);
    expect(stdout).toMatch(/--allow-relay-host H .*relay to besides loopback/);
  });

  it("the root README's Quick start names the same flags and variables", () => {
    const quickStart = /^## Quick start\n([\s\S]*?)^## /m.exec(readFileSync(path.join(repoRoot, "README.md"), "utf8"))![1]!;
    for (const api of listApis()) expect(quickStart).toMatch(new RegExp(`\\| http://127\\.0\\.0\\.1:${api.mockPort} \\| \`--${api.name}-port\` \\| \`${api.name.toUpperCase()}_PORT\` \\|`));
    expect(quickStart).toContain("`npm start -- --help`");
  });

  it.each([
    [["--bogus"], "Unknown option '--bogus'"],
    [["--docs-port", "http"], "--docs-port must be a port number (0-65535), got 'http'"],
  ])("%j is a usage error: exit 2, one line saying why, then the usage, no stack trace", async (args, why) => {
    const { code, stdout, stderr } = await startWith(args);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr.split("\n")[0]).toContain(`start: ${why}`);
    expect(stderr).toContain("Usage: npm start --");
    expect(stderr).not.toMatch(/node:internal|ERR_PARSE_ARGS/);
  });

  it("takes its ports from the variables (0 picks free ones), prints each URL and stops on SIGTERM", async () => {
    const portVariables = Object.fromEntries(listApis().map((api) => [`${api.name.toUpperCase()}_PORT`, "0"]));
    const child = spawn(process.execPath, [start], { env: { ...process.env, ...portVariables, DOCS_PORT: "0" }, stdio: ["ignore", "pipe", "inherit"] });
    const urls: string[] = [];
    for await (const line of createInterface({ input: child.stdout })) {
      if (line === "Press Ctrl+C to stop.") break;
      urls.push(/(http:\/\/\S+)$/.exec(line)![1]!);
    }
    try {
      expect(urls).toHaveLength(listApis().length + 1);
      for (const url of urls) {
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(url).not.toMatch(/:(4000|4010|4011)$/);
      }
      expect((await fetch(urls.at(-1)!)).status).toBe(200);
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    }
  });
});
