// What a server process holds and spends, read from /proc (Linux): for benches that load a server
// in a process of its own and check that it gives its sockets back.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/** Sockets a process holds open (its listening sockets included). */
export function openSockets(pid: number): number {
  const dir = `/proc/${pid}/fd`;
  return readdirSync(dir).filter((fd) => {
    try {
      return readlinkSync(`${dir}/${fd}`).startsWith("socket:");
    } catch {
      return false;
    }
  }).length;
}

/**
 * Waits, up to `withinMs` (idle keep-alive connections close after 5 s), for a process's sockets to
 * come back down to `baseline`; resolves to the count they settled at.
 */
export async function settledSockets(pid: number, baseline: number, withinMs = 15_000): Promise<number> {
  const until = Date.now() + withinMs;
  let count = openSockets(pid);
  while (count > baseline && Date.now() < until) {
    await sleep(100);
    count = openSockets(pid);
  }
  return count;
}

let clockTicks: number | undefined;

/** CPU time (user and system) a process has used so far, in seconds. */
export function cpuSeconds(pid: number): number {
  clockTicks ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }));
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}
