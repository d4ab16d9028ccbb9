// What the proxy's two servers share on the wire: the pool to the server behind them, which headers
// go on (the end-to-end ones, by contract-core's rule), a body passed on as it comes after what was
// read of it, and stopping.
import type { IncomingMessage, Server } from "node:http";
import { Readable } from "node:stream";
import { endToEnd } from "@api-contracts/contract-core";
// By its file, not its name: Bun answers `import "undici"` with a stand-in of its own whose Pool cannot dispatch.
import { Pool, errors } from "undici/index.js";

/** Counts an exchange's violations, on every answer the proxy passes on or gives; one the upstream sent is replaced. */
export const VIOLATIONS_HEADER = "x-contract-violations";

// The proxy answers `Expect: 100-continue` itself and sends the upstream the whole body; `Host` names the upstream.
const NOT_FORWARDED_IN_REQUESTS = new Set(["host", "expect"]);

/**
 * undici's dispatcher rather than node:http's client: measured side by side, the proxy spends about a
 * quarter less CPU per exchange with it, and CPU per exchange is what bounds a proxy's throughput.
 * `timeoutMs` is the longest silence allowed: to connect, before the answer and between its chunks.
 */
export function poolTo(origin: string, connections: number, timeoutMs: number): Pool {
  return new Pool(origin, { connections, connectTimeout: timeoutMs, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
}

/** Why the server behind the proxy gave no whole answer, as the 502 in its place says it. */
export function upstreamProblem(error: Error & { code?: string }, timeoutMs: number): string {
  const code = error.code ?? "";
  if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT" || code === "UND_ERR_CONNECT_TIMEOUT") return `the upstream did not answer within ${timeoutMs} ms`;
  if (error instanceof errors.HTTPParserError) return "the upstream's answer is not valid HTTP";
  if (code === "UND_ERR_SOCKET" || code === "ECONNRESET" || code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH") return "the upstream closed the connection before its answer was complete";
  return `the upstream could not be reached (${code || "connection failed"})`;
}

/** An answer's headers as undici hands them over (lower-case names, repeated ones as arrays), as raw pairs. */
export function pairsOf(headers: Record<string, string | string[] | undefined>): string[] {
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(headers)) for (const one of [value].flat()) if (one !== undefined) pairs.push(name, one);
  return pairs;
}

/** The end-to-end headers of a request forwarded to `host`, with the length of a body read `whole`. */
export function forwardedHeaders(req: IncomingMessage, host: string, whole: Buffer | undefined): string[] {
  const headers = endToEnd(req.rawHeaders, NOT_FORWARDED_IN_REQUESTS);
  headers.push("host", host);
  // A chunked body read whole is sent with its length: the framing is the connection's, not the message's.
  if (whole && req.headers["transfer-encoding"] !== undefined) headers.push("content-length", String(whole.length));
  return headers;
}

/** A request body sent on as it arrives, after the chunks already read of it. */
export function bodyOf(read: Buffer[], rest: IncomingMessage): Readable {
  return Readable.from(
    (async function* () {
      yield* read;
      // An upstream that answers early stops reading. The client's request is then drained, not
      // destroyed: destroying it would reset the connection under a client still sending, which would
      // never read the answer. The connection then closes lingering, within its bounds.
      try {
        for await (const chunk of rest.iterator({ destroyOnReturn: false })) yield chunk as Buffer;
      } finally {
        if (!rest.complete) rest.resume();
      }
    })(),
    { objectMode: false },
  );
}

/** Stops taking connections and closes the open ones; resolves, with the error closing met if any, once all are closed. */
export function stopServer(server: Server): Promise<Error | undefined> {
  const stopped = new Promise<Error | undefined>((resolve) => server.close(resolve));
  server.closeAllConnections();
  return stopped;
}
