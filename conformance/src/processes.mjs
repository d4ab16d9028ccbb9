// The processes a conformance run starts: each in its own process group, so that stopping it also
// stops what it started (pnpm's children, the API's workers); every wait is bounded.
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { createConnection, createServer } from "node:net";
import { listen } from "@api-contracts/contract-core/server";

/** Children still running, by pid. */
const running = new Map();
/** Set once a signal asked the run to stop: nothing new is started after it. */
let stopping = false;

/** A free TCP port on 127.0.0.1, chosen by the system. */
export async function freePort() {
  const server = createServer();
  const port = await listenOnLoopback(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts `server` listening on a free port of 127.0.0.1 (contract-core's `listen`); resolves with the port. */
export const listenOnLoopback = async (server) => (await listen(server, 0, "127.0.0.1")).port;

/** Closes an HTTP server with the connections it still holds; resolves when it is closed (or was already). */
export function closeServer(server) {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });
}

/**
 * Connects to a port of 127.0.0.1 and resolves with what `talk` makes of the connection (by
 * default: that it connected); false when it fails or 2 s pass.
 */
export function probePort(port, talk = (_socket, done) => done(true)) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2_000, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => talk(socket, done));
  });
}

/** Whether an executable is on the PATH. */
export async function onPath(command) {
  const code = await run("sh", ["-c", `command -v ${command}`], { timeoutMs: 5_000, quiet: true }).catch(() => 1);
  return code === 0;
}

function startGroup(command, args, { cwd, env, logFile, quiet }) {
  if (stopping) throw new Error(`stopping: ${command} is not started`);
  const child = spawn(command, args, {
    cwd,
    env: env ?? process.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const sink = logFile ? createWriteStream(logFile, { flags: "a" }) : undefined;
  for (const [stream, echo] of [[child.stdout, process.stdout], [child.stderr, process.stderr]]) {
    stream.on("data", (chunk) => {
      sink?.write(chunk);
      if (!quiet && !sink) echo.write(chunk);
    });
  }
  child.once("exit", () => running.delete(child.pid));
  // The output ends after the exit: the log is closed once the child's pipes are, and `logged`
  // resolves when all of it is in the file.
  child.logged = new Promise((resolve) => {
    child.once("close", () => (sink ? sink.end(resolve) : resolve()));
    child.once("error", () => (sink ? sink.end(resolve) : resolve()));
  });
  if (child.pid !== undefined) running.set(child.pid, child);
  return child;
}

/**
 * Runs a command to its end and resolves with its exit code once its output is in `logFile`; past
 * `timeoutMs` its whole process group is stopped and the promise rejects, naming the command.
 */
export function run(command, args, { cwd, env, timeoutMs, logFile, quiet = false }) {
  return new Promise((resolve, reject) => {
    const child = startGroup(command, args, { cwd, env, logFile, quiet });
    const timer = setTimeout(() => {
      void stopGroup(child).then(() => reject(new Error(`${command} ${args.join(" ")} did not finish within ${timeoutMs} ms`)));
    }, timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      // A grandchild that keeps the pipes open must not hold the run: 5 s at most for the rest.
      void Promise.race([child.logged, new Promise((done) => setTimeout(done, 5_000).unref())]).then(() => resolve(code ?? (signal ? 128 : 1)));
    });
  });
}

/** Runs a command to its end (see run) and throws, naming `what` and its log, unless it exits 0. */
export async function runStep(what, command, args, options) {
  if ((await run(command, args, options)) !== 0) throw new Error(`${what} failed; see ${options.logFile}`);
}

/** Starts a long-running process (a server) in its own process group, its output appended to `logFile`. */
export function startDaemon(command, args, { cwd, env, logFile }) {
  const child = startGroup(command, args, { cwd, env, logFile, quiet: true });
  child.once("error", () => running.delete(child.pid));
  return child;
}

/** Stops a child's process group: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopGroup(child, graceMs = 5_000) {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const signal = (name) => {
    try {
      process.kill(-child.pid, name);
    } catch {
      // the group is already gone
    }
  };
  signal("SIGTERM");
  const timer = setTimeout(() => signal("SIGKILL"), graceMs);
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, graceMs + 2_000))]);
  clearTimeout(timer);
  running.delete(child.pid);
}

/** Work to do once every process is stopped (removing a folder a server wrote to), by name. */
const afterStop = new Map();

/** Registers `fn` to run after stopAll has stopped the processes (again under the same name: replaced). */
export function whenStopped(name, fn) {
  afterStop.set(name, fn);
}

/** Stops every process group this run started, newest first, then runs what whenStopped registered. */
export async function stopAll() {
  const children = [...running.values()].reverse();
  for (const child of children) await stopGroup(child);
  const tasks = [...afterStop.values()];
  afterStop.clear();
  for (const task of tasks) await Promise.resolve().then(task).catch(() => {});
}

/** On SIGINT or SIGTERM: stop everything started, then exit 130 / 143. */
export function stopOnSignals(log) {
  for (const [name, code] of [["SIGINT", 130], ["SIGTERM", 143]]) {
    process.once(name, () => {
      stopping = true;
      log(`${name}: stopping what was started`);
      void stopAll().finally(() => process.exit(code));
    });
  }
}

/** Polls `probe` every `everyMs` until it resolves truthy; rejects with `what` after `timeoutMs`. */
export async function waitUntil(probe, { timeoutMs, everyMs = 500, what, stillRunning }) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (stillRunning && !stillRunning()) throw new Error(`${what}: the process exited before it was ready`);
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not ready within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
