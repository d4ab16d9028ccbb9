import { STATUS_CODES, createServer, type IncomingMessage, type RequestListener, type Server, type ServerOptions, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { ErrorReply, Problem } from "../wording/wording.js";

/** What node's HTTP parser reports about a request it refused, as a problem the API can word. */
export function parserProblem(error: Error & { code?: string }): Problem {
  const code = error.code;
  if (code === "ERR_HTTP_REQUEST_TIMEOUT" || code === "ERR_HTTP_HEADERS_TIMEOUT") return { kind: "timeout" };
  const reason = (message: string): Problem => ({ kind: "bad-request", message });
  if (code === "HPE_HEADER_OVERFLOW") return reason("The request line and headers are larger than the server accepts");
  if (code === "HPE_INVALID_CHUNK_SIZE" || code === "HPE_INVALID_EOF_STATE") return reason("The chunked body is not valid chunked encoding");
  if (code === "HPE_UNEXPECTED_CONTENT_LENGTH" || code === "HPE_INVALID_TRANSFER_ENCODING") return reason("Content-Length and Transfer-Encoding conflict");
  return reason("The request is not valid HTTP/1.1");
}

/** A complete HTTP/1.1 answer as raw bytes, for sockets the HTTP parser has given up on. */
export function rawHttpAnswer(reply: ErrorReply): string {
  const text = JSON.stringify(reply.body);
  return `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? "Error"}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`;
}

/**
 * Answers every request node's HTTP parser refuses (bad framing, oversized headers, timeouts) in
 * the API's error shape instead of node's empty reply. Once an answer has begun on the socket, the
 * only honest ending is to close it.
 */
export function answerParserErrors(server: Server, word: (problem: Problem) => ErrorReply): void {
  server.on("clientError", (error: Error & { code?: string }, socket: Socket) => answerParserError(error, socket, word));
}

/** What {@link answerParserErrors} does for one refused request (for servers that take a handler). */
export function answerParserError(error: Error & { code?: string }, socket: Socket, word: (problem: Problem) => ErrorReply): void {
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy();
    return;
  }
  // The answer is written, then the connection closes lingering (lingerOnClose) where it is installed.
  socket.write(rawHttpAnswer(word(parserProblem(error))), () => socket.destroySoon());
}

/** Listens on `host:port` (0 picks a free port) and gives the URL clients reach it at. */
export async function listen(server: Server, port: number, host: string): Promise<{ url: string; port: number }> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return { url: `http://${shownHost}:${address.port}`, port: address.port };
}

/** How long a closing connection keeps reading what its client still sends, and how much of it. */
export interface LingerBounds {
  /** Bytes read and dropped after the answer before the connection is cut. */
  maxBytes: number;
  /** Milliseconds the connection waits for the client to finish before it is cut. */
  maxMs: number;
}

/** Up to 64 MiB or 5 s: enough for a client sending a few times any body limit here to read its answer. */
export const DEFAULT_LINGER: LingerBounds = { maxBytes: 64 * 1024 * 1024, maxMs: 5_000 };

/**
 * Makes a connection that the server closes after an answer (a 413 from `Content-Length`, an early
 * 401, a parser refusal) close the way trusted servers do: the answer is sent and the sending side
 * shut, then whatever the client still sends is read and dropped until it finishes or a bound is
 * reached. Closing at once with unread bytes makes the kernel reset the connection, and a client
 * still sending its body then sees ECONNRESET or EPIPE instead of the answer.
 */
export function lingerOnClose(socket: Socket, bounds: LingerBounds = DEFAULT_LINGER): void {
  // Node ends a connection it will not keep alive with destroySoon(): end, then destroy at once.
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (this.destroyed) return;
    if (this.readableEnded) return void this.end(() => this.destroy());
    // The HTTP parser reads the socket's handle itself (no 'data' events), so what the client
    // still sends is counted from bytesRead, polled.
    const readBefore = this.bytesRead;
    const cut = () => {
      clearTimeout(deadline);
      clearInterval(watch);
      this.destroy();
    };
    const deadline = setTimeout(cut, bounds.maxMs);
    const watch = setInterval(() => void (this.bytesRead - readBefore > bounds.maxBytes && cut()), LINGER_POLL_MS);
    deadline.unref();
    watch.unref();
    this.once("end", cut);
    this.once("close", cut);
    this.end();
    // The server stopped reading once it had answered; read on, and let the parser drop it.
    this.resume();
    (this as Socket & { _handle?: { readStart?(): void } | null })._handle?.readStart?.();
  };
}

/** How often a lingering connection checks how much it has read. */
const LINGER_POLL_MS = 20;

/** Deadlines of a server facing untrusted clients. */
export interface ServerLimits {
  /** The whole request, headers and body, must arrive within this many milliseconds. */
  requestTimeoutMs: number;
  /** The header section must arrive within this many milliseconds (at most `requestTimeoutMs`). */
  headersTimeoutMs: number;
  /** A connection idle for this long between requests is closed. */
  keepAliveTimeoutMs?: number;
  /** A connection with no traffic at all for this long is closed (none when omitted). */
  idleTimeoutMs?: number;
  linger?: LingerBounds;
  /** Node's own options the edge leaves at their defaults: the header size limit, whether `Host` is required. */
  node?: Pick<ServerOptions, "maxHeaderSize" | "requireHostHeader">;
}

/**
 * An HTTP server whose deadlines follow `limits`, whose closing connections linger
 * ({@link lingerOnClose}) and, given `word`, whose parser refusals are answered in the API's shape
 * ({@link answerParserErrors}).
 */
export function createEdgeServer(limits: ServerLimits, handler: RequestListener<typeof IncomingMessage, typeof ServerResponse>, word?: (problem: Problem) => ErrorReply): Server {
  const headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  const server = createServer(
    {
      ...limits.node,
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout,
      keepAliveTimeout: limits.keepAliveTimeoutMs ?? 5_000,
      // Node looks for expired requests only this often (30 s by default), so the interval follows
      // the shortest deadline for a timeout to fire close to when it is due.
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(headersTimeout / 4))),
    },
    handler,
  );
  if (limits.idleTimeoutMs !== undefined) server.setTimeout(limits.idleTimeoutMs);
  server.on("connection", (socket: Socket) => lingerOnClose(socket, limits.linger));
  // A framework with its own parser-error hook (Fastify) words them itself, with answerParserError.
  if (word) answerParserErrors(server, word);
  return server;
}
