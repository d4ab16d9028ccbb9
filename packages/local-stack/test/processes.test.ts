import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { startApiServer, startLocalStack } from "../src/index.js";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

/** Starts the command and resolves with the URLs it prints, once it has printed `count` of them. */
function launch(args: string[], count: number): Promise<{ child: ChildProcess; urls: string[] }> {
  const child = spawn(process.execPath, ["bin/api-mock.js", ...args], { cwd: packageDir, stdio: ["ignore", "pipe", "pipe"] });
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
  const child = spawn(process.execPath, ["bin/api-mock.js", ...args], { cwd: packageDir, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return once(child, "exit").then(([code]) => ({ code: code as number | null, stdout, stderr }));
}

const webKey = { authorization: "Bearer fc-0123456789abcdef0123456789abcdef" };
const autumnKey = { authorization: "Bearer am_sk_test_0123456789" };
const check = JSON.stringify({ customer_id: "c", feature_id: "f" });

const tokenUsage = (url: string, headers: Record<string, string> = webKey) => fetch(`${url}/v2/team/token-usage`, { headers });
const balanceCheck = (url: string, headers: Record<string, string> = autumnKey) =>
  fetch(`${url}/v1/balances.check`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: check });

describe("api-mock command", () => {
  it("--help prints the usage with every option and exits 0", async () => {
    const { code, stdout } = await run(["--help"]);
    expect(code).toBe(0);
    for (const flag of ["--host", "--webdata-port", "--entitlements-port", "--only", "--dynamic", "--seed", "--stateful"]) expect(stdout).toContain(flag);
  });

  it("an unknown flag, a bad port or an unknown API exits 2 with a message", async () => {
    for (const args of [["--nope"], ["--webdata-port", "http"], ["--only", "billing"]]) {
      const { code, stderr } = await run(args);
      expect(code, args.join(" ")).toBe(2);
      expect(stderr).toMatch(/api-mock: /);
    }
  });

  it("serves both APIs on the given ports, Web Data first, and stops on SIGTERM", async () => {
    const { child, urls } = await launch(["--webdata-port", "0", "--entitlements-port", "0"], 2);
    const [webdata, entitlements] = urls as [string, string];
    expect((await tokenUsage(webdata)).status).toBe(200);
    expect((await balanceCheck(entitlements)).status).toBe(200);
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });

  it("--only serves a single API", async () => {
    const { child, urls } = await launch(["--only", "entitlements", "--entitlements-port", "0"], 1);
    expect(urls).toHaveLength(1);
    expect((await balanceCheck(urls[0]!)).status).toBe(200);
    child.kill("SIGTERM");
    await once(child, "exit");
  });

  it("--stateful serves the reference implementation, which refuses keys the mock accepts", async () => {
    const { child, urls } = await launch(["--stateful", "--only", "entitlements", "--entitlements-port", "0"], 1);
    const reply = await balanceCheck(urls[0]!, { authorization: "Bearer am_sk_unknown_key" });
    expect(reply.status).toBe(401);
    expect(await reply.json()).toMatchObject({ code: "invalid_secret_key" });
    child.kill("SIGTERM");
    await once(child, "exit");
  });
});

describe("startApiServer", () => {
  it("stateful: true serves the reference implementation, stateful: false the examples", async () => {
    const [reference, mock] = await Promise.all([
      startApiServer({ api: "entitlements", port: 0, stateful: true }),
      startApiServer({ api: "entitlements", port: 0 }),
    ]);
    try {
      const unknownKey = { authorization: "Bearer am_sk_unknown_key" };
      const refused = await balanceCheck(reference.url, unknownKey);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: "invalid_secret_key" });
      expect((await balanceCheck(mock.url, unknownKey)).status).toBe(200);
    } finally {
      await Promise.all([reference.close(), mock.close()]);
    }
  });
});

describe("startLocalStack", () => {
  it("serves the Web Data mock, the Entitlements mock and the docs, and close() stops them all", async () => {
    const stack = await startLocalStack({ ports: { webdata: 0, entitlements: 0 }, docsPort: 0 });
    const url = (name: string) => stack.servers.find((s) => s.name === name)!.url;
    try {
      expect(stack.servers.map((s) => s.name).sort()).toEqual(["docs", "entitlements", "webdata"]);
      expect((await tokenUsage(url("webdata"))).status).toBe(200);
      expect((await balanceCheck(url("entitlements"))).status).toBe(200);
      const page = await fetch(url("docs"));
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/<html/i);
    } finally {
      await stack.close();
    }
    await expect(fetch(url("docs"))).rejects.toThrow();
  });

  it("a port already taken rejects the start with the reason", async () => {
    const taken = await startApiServer({ api: "webdata", port: 0 });
    try {
      await expect(startLocalStack({ ports: { webdata: taken.port, entitlements: 0 }, docsPort: 0 })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await taken.close();
    }
  });
});
