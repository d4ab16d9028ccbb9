// When a long-running command stops: on SIGINT, on SIGTERM, and when the npm process that launched
// it ends. `npx @api-contracts/local-stack &` or `npm start &` runs the command under npm, through
// a shell npm starts (`sh -c`); `kill $!` stops npm alone, which does not pass the signal on, and
// the command used to stay on its port under PID 1. So a command started by npm watches the chain
// of processes from itself up to npm, and stops as on SIGTERM when that chain breaks (npm, or a
// shell between, ended).
import { execFile, execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";

/** What asked a command to stop. */
export type StopCause = "SIGINT" | "SIGTERM" | "launcher";

export interface StopRequestOptions {
  /** How often the chain up to the launcher is read, in milliseconds. Default 200 on Linux, 1000 elsewhere (ps). */
  intervalMs?: number;
  /** The environment that tells whether npm started this process. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

interface ProcessEntry {
  ppid: number;
  name: string;
}

/** The shells a package manager runs a command through (npm's `script-shell`, `sh` by default). */
const SHELL = /^-?(ba|da|z|k|mk|a)?sh$/;

/** Most shells between a command and its launcher that are followed (a script that runs a script...). */
const MAX_SHELLS = 8;

/** `/proc/<pid>/stat`: the name in parentheses (it may hold spaces and parentheses itself), then the state and the parent. */
function parseStat(stat: string): ProcessEntry {
  const close = stat.lastIndexOf(")");
  return { name: stat.slice(stat.indexOf("(") + 1, close), ppid: Number(stat.slice(close + 2).split(" ")[1]) };
}

/** `ps -o ppid=,comm=`: the parent, then the command, a path on macOS. */
function parsePs(line: string): ProcessEntry | undefined {
  const match = /^\s*(\d+)\s+(.*?)\s*$/.exec(line);
  return match ? { ppid: Number(match[1]), name: match[2]!.split("/").pop()! } : undefined;
}

const psArguments = (pid: number) => ["-o", "ppid=,comm=", "-p", String(pid)];
const runFile = promisify(execFile);

/** The parent and name of process `pid`, read once at start (synchronously, before any launcher can end); undefined when it is gone. */
function readProcessNow(pid: number): ProcessEntry | undefined {
  try {
    if (process.platform === "linux") return parseStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
    return parsePs(execFileSync("ps", psArguments(pid), { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
  } catch {
    return undefined;
  }
}

/** The same, read while serving: without blocking, as ps takes milliseconds. */
async function readProcess(pid: number): Promise<ProcessEntry | undefined> {
  try {
    if (process.platform === "linux") return parseStat(await readFile(`/proc/${pid}/stat`, "utf8"));
    return parsePs((await runFile("ps", psArguments(pid), { encoding: "utf8" })).stdout);
  } catch {
    return undefined;
  }
}

/**
 * The processes from this one's parent up to the one that launched it through npm: the parent, the
 * shells above it, and the first process that is not a shell (npm, or whatever ran the shells).
 * Undefined when npm did not start this process (no `npm_lifecycle_event`, which npm, npx and the
 * other package managers set), as `node bin/api-mock.js &` is stopped by `kill` itself and may
 * outlive the shell that started it; and on Windows, which has no such chain to read.
 */
function launcherChain(env: NodeJS.ProcessEnv = process.env): number[] | undefined {
  if (process.platform === "win32" || env.npm_lifecycle_event === undefined) return undefined;
  const chain = [process.ppid];
  for (let entry = readProcessNow(process.ppid); entry && SHELL.test(entry.name) && chain.length <= MAX_SHELLS; entry = readProcessNow(entry.ppid)) {
    chain.push(entry.ppid);
  }
  return chain;
}

/** Whether every process of `chain` is still the parent of the one before it (this process first). */
async function chainHolds(chain: number[]): Promise<boolean> {
  if (process.ppid !== chain[0]) return false;
  for (let i = 1; i < chain.length; i++) {
    if ((await readProcess(chain[i - 1]!))?.ppid !== chain[i]) return false;
  }
  return true;
}

/**
 * Calls `stop` once, on the first of SIGINT, SIGTERM and the end of the npm process that launched
 * this one (see {@link launcherChain}), with what asked. Register it once the command serves, in
 * place of its own signal handlers; after it fired, a second SIGINT or SIGTERM ends the process at
 * once, as Node does by default. Returns a function that cancels it. The watch never keeps the
 * process alive on its own.
 */
export function onStopRequest(stop: (cause: StopCause) => void, options: StopRequestOptions = {}): () => void {
  const chain = launcherChain(options.env);
  let timer: ReturnType<typeof setInterval> | undefined;
  const onSigint = () => fire("SIGINT");
  const onSigterm = () => fire("SIGTERM");
  function cancel(): void {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigterm);
    clearInterval(timer);
    timer = undefined;
  }
  function fire(cause: StopCause): void {
    cancel();
    stop(cause);
  }
  process.once("SIGINT", onSigint);
  process.once("SIGTERM", onSigterm);
  if (chain) {
    let reading = false;
    timer = setInterval(() => {
      if (reading) return;
      reading = true;
      void chainHolds(chain).then((holds) => {
        reading = false;
        if (!holds && timer) fire("launcher");
      });
    }, options.intervalMs ?? (process.platform === "linux" ? 200 : 1000));
    timer.unref();
  }
  return cancel;
}
