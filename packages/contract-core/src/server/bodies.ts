// Reading a message's body within a limit, on Node: what every server, relay and receiver here
// reads of an untrusted request or answer. The browser part (a fetched answer) is the wire's.
import type { IncomingMessage } from "node:http";

/** Chunks as one buffer, without a copy when there is only one. */
export function joinChunks(chunks: Buffer[], size?: number): Buffer {
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

/**
 * Reads a message's body until it ends or grows past `limit` (at once when its `Content-Length`
 * says it will); past it, the message is left paused with nothing lost, so that what was read and
 * the rest can be passed on as they come, or the connection closed. A message broken off is given
 * up: its socket closes, and neither callback is called.
 */
export function readUpTo(message: IncomingMessage, limit: number, on: { end(bytes: Buffer): void; overflow(read: Buffer[]): void }): void {
  if (Number(message.headers["content-length"]) > limit) return on.overflow([]);
  const chunks: Buffer[] = [];
  let size = 0;
  const ignore = () => {};
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    chunks.push(chunk);
    if (size <= limit) return;
    message.pause();
    message.off("data", onData).off("end", onEnd).off("error", ignore);
    on.overflow(chunks);
  };
  const onEnd = () => {
    message.off("error", ignore);
    on.end(joinChunks(chunks, size));
  };
  message.on("data", onData).once("end", onEnd).once("error", ignore);
}

/** A message that ended before its body was whole (its client went away). */
export class BrokenOffError extends Error {
  override name = "BrokenOffError";
}

/**
 * The body of a message, at most `limit` bytes; undefined when it is longer (the rest is left
 * unread, the message paused). Rejects with a {@link BrokenOffError} when the message is broken off.
 */
export function readBody(message: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const brokenOff = () => reject(new BrokenOffError("the message was broken off before its body ended"));
    message.once("close", brokenOff);
    const settle = (value: Buffer | undefined) => {
      message.off("close", brokenOff);
      resolve(value);
    };
    readUpTo(message, limit, { end: settle, overflow: () => settle(undefined) });
  });
}
