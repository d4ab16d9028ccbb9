import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { post, send } from "./support.js";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

/** Starts a node script and resolves with the URLs it prints, once it has printed `count` of them. */
function launch(args: string[], cwd: string, count: number): Promise<{ child: ChildProcess; urls: string[] }> {
  const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const urls = out.match(/http:\/\/[^\s]+/g) ?? [];
      if (urls.length >= count) resolve({ child, urls });
    });
    child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.once("exit", (code) => reject(new Error(`exited with ${code} before listening: ${err}`)));
  });
}

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { cwd: packageDir, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return once(child, "exit").then(([code]) => ({ code: code as number | null, stdout, stderr }));
}

const webKey = { authorization: "Bearer fc-0123456789abcdef0123456789abcdef" };
const autumnKey = { authorization: "Bearer am_sk_test_0123456789" };

describe("api-mock bin", () => {
  it("--help prints the usage with every option and exits 0", async () => {
    const { code, stdout } = await run(["bin/api-mock.js", "--help"]);
    expect(code).toBe(0);
    for (const flag of ["--host", "--webdata-port", "--entitlements-port", "--only", "--dynamic", "--seed", "--stateful"]) {
      expect(stdout).toContain(flag);
    }
  });

  it("an unknown flag or a bad port exits 2 with a message", async () => {
    for (const args of [["--nope"], ["--webdata-port", "http"], ["--only", "billing"]]) {
      const { code, stderr } = await run(["bin/api-mock.js", ...args]);
      expect(code, args.join(" ")).toBe(2);
      expect(stderr).toMatch(/api-mock: /);
    }
  });

  it("serves both APIs on the given ports, printing their URLs, and stops on SIGTERM", async () => {
    const { child, urls } = await launch(["bin/api-mock.js", "--webdata-port", "0", "--entitlements-port", "0"], packageDir, 2);
    const [webdata, entitlements] = urls as [string, string];
    expect((await send(webdata, { method: "GET", path: "/v2/team/token-usage", headers: webKey })).status).toBe(200);
    expect((await post(entitlements, "/v1/balances.check", { customer_id: "c", feature_id: "f" }, autumnKey)).status).toBe(200);
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });

  it("--only serves a single API", async () => {
    const { child, urls } = await launch(["bin/api-mock.js", "--only", "entitlements", "--entitlements-port", "0"], packageDir, 1);
    expect(urls).toHaveLength(1);
    expect((await post(urls[0]!, "/v1/balances.track", { customer_id: "c", feature_id: "f" }, autumnKey)).status).toBe(200);
    child.kill("SIGTERM");
    await once(child, "exit");
  });
});

describe("root start script", () => {
  it("serves the Web Data mock, the Entitlements mock and the docs, then stops on SIGTERM", async () => {
    const { child, urls } = await launch(
      ["scripts/start.mjs", "--webdata-port", "0", "--entitlements-port", "0", "--docs-port", "0"],
      repoRoot,
      3,
    );
    const [webdata, entitlements, docs] = urls as [string, string, string];
    expect((await send(webdata, { method: "GET", path: "/v2/team/token-usage", headers: webKey })).status).toBe(200);
    expect((await post(entitlements, "/v1/balances.check", { customer_id: "c", feature_id: "f" }, autumnKey)).status).toBe(200);
    const page = await send(docs, { method: "GET", path: "/" });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<html/i);
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });
});
