import { STATUS_CODES, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { ErrorReply, Problem } from "./wording.js";

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
  socket.end(rawHttpAnswer(word(parserProblem(error))), () => socket.destroy());
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
