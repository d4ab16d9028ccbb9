// An API the stack has no code for, named only by CONTRACT_API_DIRS (the Notes API of the tests):
// api-mock serves it on its facts' port with its own flag, and the local stack serves it with the others.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { THIRD_API, THIRD_API_DIR } from "@api-contracts/dev-tools/testing";
import { afterAll, describe, expect, it } from "vitest";
import { startLocalStack } from "../src/index.js";

// The registry reads the variable when it is first asked, which is after this line.
process.env.CONTRACT_API_DIRS = THIRD_API_DIR;

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const key = { authorization: "Bearer nk_0123456789" };
const dir = mkdtempSync(path.join(tmpdir(), "api-mock-third-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A port free now. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The refusals of the Notes API in its own shape: 401 without a key, 415 for text/plain, 400 for limit=99. */
async function refusals(url: string): Promise<Array<[number, unknown]>> {
  const answers = await Promise.all([
    fetch(`${url}/v1/notes`),
    fetch(`${url}/v1/notes`, { method: "POST", headers: { ...key, "content-type": "text/plain" }, body: JSON.stringify({ text: "Buy milk" }) }),
    fetch(`${url}/v1/notes?limit=99`, { headers: key }),
  ]);
  return Promise.all(answers.map(async (answer) => [answer.status, ((await answer.json()) as { error: { code: string } }).error.code] as [number, unknown]));
}

describe("api-mock with CONTRACT_API_DIRS", () => {
  it("serves the Notes API from its folder alone: its flag in --help, on its facts' port by default, with its examples and its refusals", async () => {
    // A copy of the folder whose facts name a port free now, so that the default port is seen to be the facts'.
    const port = await freePort();
    const folder = path.join(dir, THIRD_API);
    mkdirSync(folder);
    copyFileSync(path.join(THIRD_API_DIR, "openapi.json"), path.join(folder, "openapi.json"));
    writeFileSync(path.join(folder, "api.json"), JSON.stringify({ ...JSON.parse(readFileSync(path.join(THIRD_API_DIR, "api.json"), "utf8")), mockPort: port }));
    const env = { ...process.env, CONTRACT_API_DIRS: folder };
    const command = (args: string[]) => spawn(process.execPath, ["bin/api-mock.js", ...args], { cwd: packageDir, env, stdio: ["ignore", "pipe", "inherit"] });

    const help = command(["--help"]);
    let usage = "";
    help.stdout.on("data", (chunk: Buffer) => (usage += chunk.toString()));
    await once(help, "exit");
    expect(usage).toMatch(new RegExp(`--notes-port <port> +port of the Notes API \\(default ${port}, 0 picks a free one\\)`));
    expect(usage).toContain("serve only one API: webdata, entitlements or notes");

    const child = command(["--webdata-port", "0", "--entitlements-port", "0"]);
    try {
      let out = "";
      while ((out.match(/http:\/\/\S+/g) ?? []).length < 3) out += (await once(child.stdout, "data"))[0];
      expect(out).toContain(`notes        http://127.0.0.1:${port}\n`);
      const url = `http://127.0.0.1:${port}`;
      const listed = await fetch(`${url}/v1/notes`, { headers: key });
      expect(listed.status).toBe(200);
      expect(await listed.json()).toMatchObject({ notes: [{ text: "Buy milk" }] });
      expect(await refusals(url)).toEqual([
        [401, "unauthorized"],
        [415, "unsupported_media_type"],
        [400, "invalid"],
      ]);
    } finally {
      child.kill("SIGTERM");
    }
  });
});

describe("startLocalStack with CONTRACT_API_DIRS", () => {
  it("serves every registered API, the Notes API among them", async () => {
    const stack = await startLocalStack({ ports: { webdata: 0, entitlements: 0, [THIRD_API]: 0 }, docsPort: 0 });
    try {
      expect(stack.servers.map((server) => server.name).sort()).toEqual(["docs", "entitlements", THIRD_API, "webdata"].sort());
      const url = stack.servers.find((server) => server.name === THIRD_API)!.url;
      expect((await fetch(`${url}/v1/notes`, { headers: key })).status).toBe(200);
      expect(await refusals(url)).toEqual([
        [401, "unauthorized"],
        [415, "unsupported_media_type"],
        [400, "invalid"],
      ]);
    } finally {
      await stack.close();
    }
  });
});
