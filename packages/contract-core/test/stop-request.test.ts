// onStopRequest: a command stops on SIGINT, SIGTERM or the end of the npm that launched it, even
// through the shell npm runs it with. A fake launcher (a node process) plays npm here; the root's
// scripts/test/stop-with-launcher.test.ts stops every real command started through npx and npm start.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface, type Interface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { onStopRequest, type StopCause } from "../src/server/index.js";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const source = pathToFileURL(path.join(packageDir, "src", "server", "stop-request.ts")).href;

let scratch: string;
let launcherFile: string;
beforeAll(() => {
  scratch = mkdtempSync(path.join(tmpdir(), "stop-request-"));
  const command = path.join(scratch, "command.mjs");
  // The command: says it is ready with its pid, then prints what stopped it.
  writeFileSync(
    command,
    `import { onStopRequest } from ${JSON.stringify(source)};
onStopRequest((cause) => { console.log("stopped by " + cause); process.exit(0); });
console.log("ready " + process.pid);
setInterval(() => {}, 1000);`,
  );
  // The launcher, as npm does it: the command through \`sh -c\` (a list, so that the shell stays
  // between them), and no signal passed on.
  launcherFile = path.join(scratch, "launcher.mjs");
  writeFileSync(
    launcherFile,
    `import { spawn } from "node:child_process";
spawn("sh", ["-c", ${JSON.stringify(`"${process.execPath}" --import tsx "${command}"; exit $?`)}], { stdio: "inherit" });
setInterval(() => {}, 1000);`,
  );
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // The group has ended.
    }
  }
});

/** Starts the launcher in a process group of its own, the command's output on a line reader. */
function launch(env: NodeJS.ProcessEnv): { launcher: ChildProcess; lines: Interface } {
  const launcher = spawn(process.execPath, [launcherFile], { cwd: packageDir, env, detached: true, stdio: ["ignore", "pipe", "inherit"] });
  started.push(launcher);
  return { launcher, lines: createInterface({ input: launcher.stdout! }) };
}

/** The next line, or a failure after `ms`. */
function nextLine(lines: Interface, ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const onLine = (line: string) => {
      clearTimeout(timer);
      resolve(line);
    };
    const timer = setTimeout(() => {
      lines.off("line", onLine);
      reject(new Error(`no line within ${ms} ms`));
    }, ms);
    lines.once("line", onLine);
  });
}

const withoutNpm = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

describe("onStopRequest", () => {
  it("stops a command started by npm through a shell when npm ends, though the shell lives on", async () => {
    const { launcher, lines } = launch({ ...withoutNpm(), npm_lifecycle_event: "npx" });
    expect(await nextLine(lines, 30_000)).toMatch(/^ready \d+$/);
    const killed = performance.now();
    launcher.kill("SIGTERM");
    expect(await nextLine(lines, 2000)).toBe("stopped by launcher");
    console.log(`stopped ${Math.round(performance.now() - killed)} ms after its launcher`);
  });

  it("leaves a command npm did not start to its signals: it outlives its launcher, and SIGTERM stops it", async () => {
    const { launcher, lines } = launch(withoutNpm());
    const pid = Number((await nextLine(lines, 30_000)).split(" ")[1]);
    launcher.kill("SIGTERM");
    const early = nextLine(lines, 1000).catch(() => "nothing");
    expect(await early).toBe("nothing");
    process.kill(pid, "SIGTERM");
    expect(await nextLine(lines, 2000)).toBe("stopped by SIGTERM");
  });

  it("calls stop once, with the first signal, and then leaves signals to Node", () => {
    const before = { SIGINT: process.listenerCount("SIGINT"), SIGTERM: process.listenerCount("SIGTERM") };
    const causes: StopCause[] = [];
    onStopRequest((cause) => causes.push(cause), { env: {} });
    expect(process.listenerCount("SIGTERM")).toBe(before.SIGTERM + 1);
    process.emit("SIGTERM", "SIGTERM");
    expect(causes).toEqual(["SIGTERM"]);
    expect({ SIGINT: process.listenerCount("SIGINT"), SIGTERM: process.listenerCount("SIGTERM") }).toEqual(before);
    const cancel = onStopRequest((cause) => causes.push(cause), { env: {} });
    cancel();
    expect({ SIGINT: process.listenerCount("SIGINT"), SIGTERM: process.listenerCount("SIGTERM") }).toEqual(before);
  });
});
