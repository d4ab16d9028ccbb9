// What the runs of different servers share: the commit of a checkout, whether Redis and the API
// answer, and how long a step took.
import { execFileSync } from "node:child_process";
import { probePort } from "./processes.mjs";

/** The commit of the checkout: `given` (`--commit`), else `git rev-parse HEAD` in it, else "unknown". */
export function commitOf(source, given) {
  if (given) return given;
  try {
    return execFileSync("git", ["-C", source, "rev-parse", "HEAD"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 5_000 }).trim();
  } catch {
    return "unknown";
  }
}

/** Sends one inline command to the Redis server on the port; true when its answer starts with `expected`. */
export function redisReplies(port, command, expected) {
  return probePort(port, (socket, done) => {
    socket.once("data", (data) => done(data.toString().startsWith(expected)));
    socket.write(`${command}\r\n`);
  });
}

/** Whether a Redis server on the port answers PING. */
export function redisAnswers(port) {
  return redisReplies(port, "PING", "+PONG");
}

/** Whether the API answers anything over HTTP. */
export async function httpAnswers(baseUrl) {
  const response = await fetch(baseUrl, { signal: AbortSignal.timeout(3_000) });
  await response.body?.cancel();
  return true;
}

/** The time since `since` (Date.now() then), in seconds. */
export function seconds(since) {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}
