// What the proxy's two servers share on the wire: which headers go on, and reading a body
// bounded, so that what was read and the rest can be passed on as they come.
import type { IncomingMessage } from "node:http";

/** RFC 9110 §7.6.1: meaningful for one connection only, so never forwarded (nor are headers `Connection` names). */
export const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "proxy-authorization", "proxy-authenticate"]);
// The proxy answers `Expect: 100-continue` itself and sends the upstream the whole body; `Host` names the upstream.
export const NOT_FORWARDED_IN_REQUESTS = new Set(["host", "expect"]);

/** Raw header pairs (`[name, value, name, value, ...]`) without the hop-by-hop ones and those in `drop`. */
export function endToEnd(raw: string[], drop: ReadonlySet<string>): string[] {
  const listed = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === "connection") for (const token of raw[i + 1]!.split(",")) listed.add(token.trim().toLowerCase());
  }
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HOP_BY_HOP.has(name) && !drop.has(name) && !listed.has(name)) kept.push(raw[i]!, raw[i + 1]!);
  }
  return kept;
}

/** Chunks as one buffer, without a copy when there is only one. */
export function joinChunks(chunks: Buffer[], size?: number): Buffer {
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

/** A request body sent on as it arrives, after the chunks already read of it. */
export async function* bodyOf(read: Buffer[], rest: IncomingMessage): AsyncGenerator<Buffer> {
  yield* read;
  // An upstream that answers early stops reading. The client's request is then drained, not
  // destroyed: destroying it would reset the connection under a client still sending, which would
  // never read the answer. The connection then closes lingering, within its bounds.
  try {
    for await (const chunk of rest.iterator({ destroyOnReturn: false })) yield chunk as Buffer;
  } finally {
    if (!rest.complete) rest.resume();
  }
}

/**
 * Reads a message's body until it ends or grows past `limit`; past it, the message is left
 * paused with nothing lost, so that what was read and the rest can be passed on as they come.
 */
export function readUpTo(
  message: IncomingMessage,
  limit: number,
  on: { end(bytes: Buffer): void; overflow(read: Buffer[]): void; error(error: Error): void },
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    chunks.push(chunk);
    if (size <= limit) return;
    message.pause();
    message.off("data", onData).off("end", onEnd).off("error", on.error);
    on.overflow(chunks);
  };
  const onEnd = () => {
    message.off("error", on.error);
    on.end(joinChunks(chunks, size));
  };
  message.on("data", onData).once("end", onEnd).once("error", on.error);
}
