// What a user sees: api-mock started with its defaults, and the contract-test kit's HTTP probes
// (`contract-test --level http`, every default: `--timeout` 10 s) run against it. The two agree:
// the mock's request deadline ends before the kit gives up, so a stalled body gets its 408.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);
const kitManifest = require.resolve("@api-contracts/contract-tests/package.json");
const kit = path.join(path.dirname(kitManifest), (JSON.parse(readFileSync(kitManifest, "utf8")) as { bin: Record<string, string> }).bin["contract-test"]!);
const keys = { webdata: "fc-0123456789abcdef0123456789abcdef", entitlements: "am_sk_test_0123456789" };

let mock: ChildProcess;
const urls = new Map<string, string>();

beforeAll(async () => {
  // Every default but the ports, which must be free ones here.
  mock = spawn(process.execPath, ["bin/api-mock.js", "--webdata-port", "0", "--entitlements-port", "0"], { cwd: packageDir, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  while ((out.match(/http:\/\/\S+/g) ?? []).length < 2) out += (await once(mock.stdout!, "data"))[0];
  for (const [, name, url] of out.matchAll(/^(\S+) +(http:\/\/\S+)$/gm)) urls.set(name!, url!);
});
afterAll(async () => {
  if (mock.exitCode !== null) return;
  mock.kill("SIGTERM");
  await once(mock, "exit");
});

/** Runs the kit's command as a user would, and resolves with its exit code and its lines. */
async function contractTest(args: string[]): Promise<{ code: number | null; lines: string[] }> {
  const child = spawn(process.execPath, [kit, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, lines: out.split("\n") };
}

describe("contract-test --level http against api-mock, both with their defaults", () => {
  it.each(Object.entries(keys))("%s: every probe passes and none warns, a stalled body included", async (api, key) => {
    const { code, lines } = await contractTest(["--service", api, "--base-url", urls.get(api)!, "--api-key", key, "--level", "http"]);
    expect(lines.filter((line) => /^(WARN|FAIL|SKIP) /.test(line))).toEqual([]);
    expect(lines.filter((line) => / http-stalled-body: .* -- refused: 408 /.test(line)).length).toBeGreaterThan(0);
    expect(lines).toContainEqual(expect.stringMatching(/^\d+ passed, 0 failed$/));
    expect(code).toBe(0);
  });
});
