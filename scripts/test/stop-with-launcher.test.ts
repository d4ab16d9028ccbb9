// Each long-running command as CI scripts start and stop it: `npx <package> ... > log 2>&1 &`, then
// `kill $!`. npm does not pass the SIGTERM on to the command it runs (through `sh -c`), so each
// command watches its launcher: its port must be free within 2 s of the kill, and the summary of
// the proxy and of the kit must be in the log.
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer, connect, type AddressInfo } from "node:net";
import { createServer as createHttpServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { npmEnv } from "@api-contracts/dev-tools/testing";
import { listApis } from "@api-contracts/contract-core";
import { repoRoot } from "../package-graph.mjs";

/** How soon after `kill` of its launcher a command's port must be free. */
const STOPPED_WITHIN_MS = 2000;

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(path.join(tmpdir(), "stop-with-launcher-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Process groups of the launchers started here: whatever a failing run leaves behind is killed after it. */
const groups: number[] = [];
afterEach(() => {
  for (const group of groups.splice(0)) {
    try {
      process.kill(-group, "SIGKILL");
    } catch {
      // The group has ended.
    }
  }
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` every 25 ms until it gives a value, or throws after `ms`. */
async function within<T>(ms: number, what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(25);
  }
}

/** Whether something accepts connections on 127.0.0.1:`port`. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => resolve(true)).once("error", () => resolve(false));
    socket.once("connect", () => socket.destroy());
  });

/** A port nothing listens on: a server's, closed again. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

interface Launched {
  /** The launcher's process id: what `$!` is. */
  pid: number;
  log: () => string;
}

/** Starts `command` in the background with its output to a log file, as `command > log 2>&1 &` does. */
function launch(name: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): Launched {
  const logFile = path.join(scratch, `${name}.log`);
  const fd = openSync(logFile, "w");
  const child = spawn(command, args, { cwd: repoRoot, env: { ...npmEnv(), ...env }, detached: true, stdio: ["ignore", fd, fd] });
  closeSync(fd);
  groups.push(child.pid!);
  child.unref();
  return { pid: child.pid!, log: () => readFileSync(logFile, "utf8") };
}

/** Waits for `count` URLs in the log, read by `pattern` (at most `ms`), and gives their ports. */
async function portsIn(launched: Launched, pattern: RegExp, count: number, ms = 60_000): Promise<number[]> {
  const urls = await within(ms, `${count} URLs in the log`, () => {
    const found = [...launched.log().matchAll(pattern)].map((match) => match[1]!);
    return found.length >= count ? found : undefined;
  }).catch((error: Error) => {
    throw new Error(`${error.message}\n${launched.log()}`);
  });
  return urls.map((url) => Number(new URL(url).port));
}

/** `kill $!`, then the time until every port is free. */
async function killLauncher(launched: Launched, ports: number[]): Promise<number> {
  const killed = performance.now();
  process.kill(launched.pid, "SIGTERM");
  const freed = await within(10_000, `ports ${ports.join(", ")} free`, async () => ((await Promise.all(ports.map(listening))).some(Boolean) ? undefined : performance.now())).catch(
    (error: Error) => {
      throw new Error(`${error.message}\n${launched.log()}`);
    },
  );
  const ms = Math.round(freed - killed);
  console.log(`${ports.length === 1 ? "port" : "ports"} free ${ms} ms after kill of the launcher`);
  return ms;
}

describe("a command started through npx or npm start stops when its launcher is killed", () => {
  it("npx @api-contracts/local-stack (api-mock)", async () => {
    const launched = launch("api-mock", "npx", ["@api-contracts/local-stack", "--webdata-port", "0", "--entitlements-port", "0"]);
    const ports = await portsIn(launched, /^\w+\s+(http:\/\/\S+)$/gm, 2);
    expect(await killLauncher(launched, ports)).toBeLessThanOrEqual(STOPPED_WITHIN_MS);
  }, 90_000);

  it("npx @api-contracts/reference-server", async () => {
    const launched = launch("reference-server", "npx", ["@api-contracts/reference-server", "--webdata-port", "0", "--entitlements-port", "0"]);
    const ports = await portsIn(launched, /reference server listening on (http:\/\/\S+)$/gm, 2);
    expect(await killLauncher(launched, ports)).toBeLessThanOrEqual(STOPPED_WITHIN_MS);
  }, 90_000);

  it("npx @api-contracts/contract-proxy: its summary and its report are written", async () => {
    const report = path.join(scratch, "violations.jsonl");
    const launched = launch("contract-proxy", "npx", ["@api-contracts/contract-proxy", "--service", "entitlements", "--upstream", `http://127.0.0.1:${await freePort()}`, "--port", "0", "--report", report]);
    const ports = await portsIn(launched, /^(http:\/\/\S+)$/gm, 1);
    expect(await killLauncher(launched, ports)).toBeLessThanOrEqual(STOPPED_WITHIN_MS);
    await within(STOPPED_WITHIN_MS, "the proxy's summary", () => (/^0 exchanges, 0 violations$/m.test(launched.log()) ? true : undefined));
  }, 90_000);

  describe("npx @api-contracts/contract-tests, waiting for webhook calls", () => {
    // A target that starts every crawl and never calls its webhook: the kit's receiver waits.
    let target: Server;
    let targetUrl: string;
    beforeAll(async () => {
      target = createHttpServer((request, response) => {
        request.resume();
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ success: true, id: crypto.randomUUID(), url: "https://example.com" }));
      });
      await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
      targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => target.close(() => resolve())));

    it("closes its receiver and writes its summary and its report", async () => {
      const receiver = await freePort();
      const report = path.join(scratch, "kit-report.json");
      const args = ["--service", "webdata", "--base-url", targetUrl, "--api-key", "fc-test", "--level", "webhooks", "--webhook-receiver", `127.0.0.1:${receiver}`, "--webhook-deadline", "60000", "--report", report];
      const launched = launch("contract-test", "npx", ["@api-contracts/contract-tests", ...args]);
      await within(60_000, "the kit's receiver listening", async () => ((await listening(receiver)) ? true : undefined)).catch((error: Error) => {
        throw new Error(`${error.message}\n${launched.log()}`);
      });
      expect(await killLauncher(launched, [receiver])).toBeLessThanOrEqual(STOPPED_WITHIN_MS);
      const summary = await within(STOPPED_WITHIN_MS, "the kit's summary", () => /^\d+ passed, \d+ failed.*$/m.exec(launched.log())?.[0]);
      expect(summary).toMatch(/skipped/);
      expect(launched.log()).toMatch(/contract-test: stopped \(its launcher ended\)/);
      expect(JSON.parse(readFileSync(report, "utf8"))).toMatchObject({ service: "webdata", level: "webhooks" });
    }, 90_000);
  });

  it("npm start: the URLs, without turbo's banner, and every port freed", async () => {
    const portVariables = Object.fromEntries([...listApis().map((api) => `${api.name.toUpperCase()}_PORT`), "DOCS_PORT"].map((name) => [name, "0"]));
    const launched = launch("npm-start", "npm", ["start"], portVariables);
    // npm start builds what changed first: after a change to a package, that takes a while.
    const ports = await portsIn(launched, /(http:\/\/127\.0\.0\.1:\d+)$/gm, listApis().length + 1, 240_000);
    await within(10_000, "Press Ctrl+C", () => (launched.log().includes("Press Ctrl+C to stop.") ? true : undefined));
    // npm's own header of a script, then the URLs: turbo says nothing when the build has nothing to say.
    expect(launched.log()).not.toMatch(/turbo|Tasks:|Cached:|Packages in scope/);
    expect(await killLauncher(launched, ports)).toBeLessThanOrEqual(STOPPED_WITHIN_MS);
  }, 300_000);
});
