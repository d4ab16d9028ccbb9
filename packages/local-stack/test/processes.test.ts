import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { defaultFixtures } from "@api-contracts/reference-server";
import { startApiServer, startLocalStack } from "../src/index.js";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

/** Starts the command and resolves with the URLs it prints, once it has printed `count` of them; `stderr()` is what it logged so far. */
function launch(args: string[], count: number, env: NodeJS.ProcessEnv = process.env): Promise<{ child: ChildProcess; urls: string[]; stdout: () => string; stderr: () => string }> {
  const child = spawn(process.execPath, ["bin/api-mock.js", ...args], { cwd: packageDir, stdio: ["ignore", "pipe", "pipe"], env });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const urls = out.match(/http:\/\/[^\s]+/g) ?? [];
      if (urls.length >= count) resolve({ child, urls, stdout: () => out, stderr: () => err });
    });
    child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.once("exit", (code) => reject(new Error(`exited with ${code} before listening: ${err}`)));
  });
}

function run(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["bin/api-mock.js", ...args], { cwd: packageDir, stdio: ["ignore", "pipe", "pipe"], env });
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
    for (const flag of ["--host", "--webdata-port", "--entitlements-port", "--only", "--dynamic", "--seed", "--stateful", "--faults", "--faults-seed", "--webhook-secret", "--request-timeout", "--no-cors", "latency=", "fault="]) expect(stdout).toContain(flag);
  });

  it("an unknown flag, a bad port or an unknown API exits 2 with a message", async () => {
    for (const args of [["--nope"], ["--webdata-port", "http"], ["--only", "billing"], ["--request-timeout", "0"], ["--request-timeout", "5s"]]) {
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

  it("answers preflights and allows any origin by default; --no-cors sends no CORS header; --request-timeout sets the request deadline", async () => {
    const preflight = (url: string) =>
      fetch(`${url}/v1/balances.check`, { method: "OPTIONS", headers: { origin: "http://localhost:5173", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" } });
    const open = await launch(["--only", "entitlements", "--entitlements-port", "0"], 1);
    const answered = await preflight(open.urls[0]!);
    expect(answered.status).toBe(204);
    expect(answered.headers.get("access-control-allow-origin")).toBe("*");
    expect(answered.headers.get("access-control-allow-headers")).toBe("authorization, content-type");
    expect((await balanceCheck(open.urls[0]!)).headers.get("access-control-allow-origin")).toBe("*");
    open.child.kill("SIGTERM");
    await once(open.child, "exit");
    const closed = await launch(["--only", "entitlements", "--entitlements-port", "0", "--no-cors", "--request-timeout", "300"], 1);
    expect((await preflight(closed.urls[0]!)).status).toBe(404);
    expect((await balanceCheck(closed.urls[0]!)).headers.get("access-control-allow-origin")).toBeNull();
    // A body that never comes is answered 408 at the deadline given.
    const { port } = new URL(closed.urls[0]!);
    const socket = connect(Number(port), "127.0.0.1");
    socket.write(`POST /v1/balances.check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n{"`);
    const started = Date.now();
    const [answer] = (await once(socket, "data")) as [Buffer];
    expect(answer.toString("latin1")).toMatch(/^HTTP\/1\.1 408 /);
    expect(Date.now() - started).toBeLessThan(3_000);
    socket.destroy();
    closed.child.kill("SIGTERM");
    await once(closed.child, "exit");
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

describe("api-mock --webhook-secret", () => {
  it("signs the crawl calls of the mock and of --stateful, each call's end logged on stderr", async () => {
    const { OpenApiValidators, loadBundle } = await import("@api-contracts/contract-core");
    const contract = new OpenApiValidators(loadBundle("webdata"));
    const received: Array<{ headers: Record<string, string | string[] | undefined>; body: string }> = [];
    const receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk));
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    try {
      for (const [mode, key] of [["mock", webKey.authorization], ["stateful", `Bearer ${defaultFixtures.api_keys.webdata}`]] as const) {
        const { child, urls, stderr } = await launch([...(mode === "stateful" ? ["--stateful"] : []), "--webhook-secret", "s3cret", "--webdata-port", "0", "--entitlements-port", "0"], 2);
        received.length = 0;
        const crawl = await fetch(`${urls[0]}/v2/crawl`, {
          method: "POST",
          headers: { authorization: key, "content-type": "application/json" },
          body: JSON.stringify({ url: "https://example.com", limit: 1, webhook: { url: hook, events: ["started", "completed"] } }),
        });
        expect(crawl.status, mode).toBe(200);
        await expect.poll(() => received.length).toBe(2);
        for (const call of received) expect(contract.validateDelivery(call, { secret: "s3cret" }).errors, mode).toEqual([]);
        await expect.poll(() => stderr().match(/^webdata webhook crawl\.\w+ to http:\/\/127\.0\.0\.1:\d+\/hook: delivered 200 in \d+ ms$/gm)?.length ?? 0).toBe(2);
        child.kill("SIGTERM");
        await once(child, "exit");
      }
    } finally {
      receiver.closeAllConnections();
      receiver.close();
    }
  }, 60_000);
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

  it("tells the docs where the APIs run: the console's configuration lists them, the pages name them, and the relay reaches them", async () => {
    const stack = await startLocalStack({ ports: { webdata: 0, entitlements: 0 }, docsPort: 0 });
    const url = (name: string) => stack.servers.find((s) => s.name === name)!.url;
    try {
      const docs = url("docs");
      expect(await (await fetch(`${docs}/_console/config.json`)).json()).toEqual({
        relay: "/_relay",
        targets: { webdata: { mock: url("webdata") }, entitlements: { mock: url("entitlements") } },
      });
      for (const [page, api, builtWith] of [["webdata.html", "webdata", "http://127.0.0.1:4010"], ["entitlements.html", "entitlements", "http://127.0.0.1:4011"], ["entitlements.openapi.yaml", "entitlements", "http://127.0.0.1:4011"], ["index.html", "webdata", "http://127.0.0.1:4010"]] as const) {
        expect(url(api), "a free port is not the registry's").not.toBe(builtWith);
        const text = await (await fetch(`${docs}/${page}`)).text();
        expect(text, page).toContain(url(api));
        expect(text, page).not.toMatch(new RegExp(`${builtWith.replaceAll(".", "\\.")}(?![0-9])`));
      }
      const relayed = await fetch(`${docs}/_relay/v1/balances.check`, {
        method: "POST",
        headers: { ...autumnKey, "content-type": "application/json", "x-relay-target": url("entitlements") },
        body: check,
      });
      expect(relayed.status).toBe(200);
      expect(relayed.headers.get("x-relay")).toBe("1");
    } finally {
      await stack.close();
    }
  });

  it("with stateful, the console's configuration names the reference implementation", async () => {
    const stack = await startLocalStack({ ports: { webdata: 0, entitlements: 0 }, docsPort: 0, stateful: true });
    const url = (name: string) => stack.servers.find((s) => s.name === name)!.url;
    try {
      expect((await (await fetch(`${url("docs")}/_console/config.json`)).json()).targets).toEqual({ webdata: { reference: url("webdata") }, entitlements: { reference: url("entitlements") } });
    } finally {
      await stack.close();
    }
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

describe("api-mock --faults", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "api-mock-faults-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const fileWith = (content: unknown) => {
    const file = path.join(dir, `faults-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
    return file;
  };

  it("a faults file that is not one exits 2 naming the offending rule; so do a bad seed and a seed without a file", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["--faults", fileWith({ rules: [{ fault: "reset" }, { name: "typo", operation: "checkAcess", status: 503 }] })], /rule 2 \("typo"\) names "checkAcess", which is not an operation/],
      [["--faults", fileWith({ rules: [{ latency: 5 }, { latency: 5 }, { fault: "hang", status: 503 }] })], /rule 3 has both fault and status/],
      [["--faults", fileWith({ rules: [{ status: 402 }] })], /rule 1 answers 402, which .* do not document/],
      [["--faults", fileWith("{ rules: [] }")], /is not JSON/],
      [["--faults", path.join(dir, "absent.json")], /cannot be read/],
      [["--faults", fileWith({ rules: [{ fault: "reset" }] }), "--faults-seed", "1.5"], /--faults-seed must be a whole number from 0 to 4294967295/],
      [["--faults-seed", "7"], /--faults-seed only applies with --faults/],
      [["--faults", fileWith({ rules: [{ fault: "reset" }] }), "--stateful"], /--faults applies to the mocks, not to --stateful/],
    ];
    for (const [args, message] of cases) {
      const { code, stderr } = await run([...args, "--webdata-port", "0", "--entitlements-port", "0"]);
      expect(code, args.join(" ")).toBe(2);
      expect(stderr).toMatch(message);
    }
  });

  /** The outcomes of 40 checks against `api-mock --faults <file> --faults-seed <seed>`, and what it logged. */
  async function outcomesWith(file: string, seed: string): Promise<{ outcomes: string[]; log: string }> {
    const { child, urls, stderr } = await launch(["--only", "entitlements", "--entitlements-port", "0", "--faults", file, "--faults-seed", seed], 1);
    const outcomes: string[] = [];
    for (let i = 0; i < 40; i++) {
      outcomes.push(
        await balanceCheck(urls[0]!).then(
          (reply) => `${reply.status}${reply.headers.get("retry-after") ? ` retry-after ${reply.headers.get("retry-after")}` : ""}`,
          () => "network error",
        ),
      );
    }
    child.kill("SIGTERM");
    await once(child, "exit");
    return { outcomes, log: stderr() };
  }

  it("the same --faults-seed gives the same sequence of faults; each fired rule is logged with the request", async () => {
    const file = fileWith({ rules: [{ name: "checks down", operation: "checkAccess", probability: 0.25, status: 503 }, { name: "checks reset", probability: 0.2, fault: "reset" }] });
    const first = await outcomesWith(file, "11");
    const again = await outcomesWith(file, "11");
    const other = await outcomesWith(file, "12");
    expect(again.outcomes).toEqual(first.outcomes);
    expect(other.outcomes).not.toEqual(first.outcomes);
    expect(new Set(first.outcomes)).toEqual(new Set(["200", "503 retry-after 1", "network error"]));
    expect(first.log).toContain(`faults: 2 rules from ${file}, seed 11 (--faults-seed 11 repeats its draws)`);
    const logged = first.log.split("\n").filter((line) => line.startsWith("fault: "));
    expect(logged.filter((line) => line === 'fault: entitlements checkAccess POST /v1/balances.check: rule "checks down": status 503')).toHaveLength(
      first.outcomes.filter((o) => o.startsWith("503")).length,
    );
    expect(logged.filter((line) => line.endsWith('rule "checks reset": reset'))).toHaveLength(first.outcomes.filter((o) => o === "network error").length);
  });

  it("the faults file shown by --help is served as it is printed", async () => {
    const { stdout } = await run(["--help"]);
    const example = /A faults file, for example:\n([\s\S]+)$/.exec(stdout.trim())?.[1];
    expect(example).toBeDefined();
    const { child, urls, stderr } = await launch(["--faults", fileWith(example!), "--faults-seed", "1", "--webdata-port", "0", "--entitlements-port", "0"], 2);
    expect(stderr()).toMatch(/faults: 3 rules from .*, seed 1/);
    expect([200, 503]).toContain((await balanceCheck(urls[1]!)).status);
    child.kill("SIGTERM");
    await once(child, "exit");
  });
});
