import { ClientRequest } from "node:http";
import { connect as connectTcp, type Socket } from "node:net";
import { connect as connectTls } from "node:tls";
import { Duplex } from "node:stream";
import { shellQuote } from "@api-contracts/contract-core";
import { readUpTo } from "@api-contracts/contract-core/server";

/**
 * One piece of a raw request. The key and long runs stay symbolic so that a reproduction can
 * print `$API_KEY` and a `head -c` instead of the key and 64 KiB of filler.
 */
export type Piece = { text: string } | { key: true } | { fill: string; count: number };

/** Where raw requests go, and what bounds each of them. */
export interface WireTarget {
  url: URL;
  apiKey: string;
  timeoutMs: number;
  maxAnswerBytes: number;
  /** The run's deadline: a probe in flight stops when it passes. */
  deadline?: AbortSignal;
  /** Headers sent with every request (`--header`). */
  headers?: Record<string, string>;
}

/** What came back for a raw request, read with node's own HTTP parser. */
export interface RawAnswer {
  status: number;
  contentType: string | null;
  bodyText: string;
}

/** How the connection stood after an answer: closed by the server, still serving, open and silent, or carrying what is not HTTP. */
export type Connection = "closed" | "reusable" | "hanging" | "broken";

export type WireOutcome =
  | { kind: "answer"; answer: RawAnswer; connection: Connection }
  /** Nothing came back within the timeout (or before the run's deadline). */
  | { kind: "silent"; why: string }
  /** The server closed or reset the connection without answering. */
  | { kind: "cut"; why: string }
  /** An answer began but never ended within the bounds: it broke off, stalled, or outgrew --max-answer-bytes. */
  | { kind: "unfinished-answer"; why: string }
  /** The connection could not be made at all: the target is unreachable, not at fault. */
  | { kind: "unreachable"; why: string };

/** The bytes of a raw request. */
export function rawBytes(pieces: readonly Piece[], apiKey: string): Buffer {
  return Buffer.concat(pieces.map((piece) => Buffer.from("text" in piece ? piece.text : "key" in piece ? apiKey : piece.fill.repeat(piece.count), "latin1")));
}

/** printf's format-string escape for one character. */
function printfChar(char: string): string {
  if (char === "\r") return "\\r";
  if (char === "\n") return "\\n";
  if (char === "\\") return "\\\\";
  if (char === "%") return "%%";
  const code = char.charCodeAt(0);
  return code < 0x20 || code === 0x7f ? `\\${code.toString(8).padStart(3, "0")}` : char;
}

/**
 * A shell command that sends the same bytes without the kit: `printf` writes them (the key as
 * "$API_KEY", filler from `head -c`), `nc` or `openssl s_client` carries them, and a `sleep`
 * keeps the connection open long enough to read the answer.
 */
export function reproduction(pieces: readonly Piece[], url: URL, holdSeconds: number): string {
  let format = "";
  const args: string[] = [];
  for (const piece of pieces) {
    if ("text" in piece) format += [...piece.text].map(printfChar).join("");
    else {
      format += "%s";
      args.push("key" in piece ? '"$API_KEY"' : `"$(head -c ${piece.count} /dev/zero | tr '\\0' ${shellQuote(piece.fill)})"`);
    }
  }
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const carrier = url.protocol === "https:" ? `openssl s_client -quiet -connect ${url.hostname}:${port} -servername ${url.hostname}` : `nc ${url.hostname} ${port}`;
  return `(printf ${shellQuote(format)}${args.map((arg) => ` ${arg}`).join("")}; sleep ${holdSeconds}) | ${carrier}`;
}

function open(url: URL): Socket {
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return url.protocol === "https:" ? connectTls({ host, port, servername: host === url.hostname ? host : undefined }) : connectTcp({ host, port });
}

/**
 * A view of the socket for node's HTTP client parser: it reads what the server sends, and drops
 * what the client would write (the kit writes its raw bytes to the socket itself).
 */
function readingView(socket: Socket): { view: Duplex; detach(): void } {
  const view = new Duplex({
    read() {},
    write(_chunk, _encoding, done) {
      done();
    },
  });
  const onData = (chunk: Buffer) => view.push(chunk);
  const onEnd = () => view.push(null);
  const onError = (error: Error) => view.destroy(error);
  socket.on("data", onData).on("end", onEnd).on("error", onError).on("close", onEnd);
  return {
    view,
    detach: () => {
      socket.off("data", onData).off("end", onEnd).off("error", onError).off("close", onEnd);
    },
  };
}

/**
 * Settles when one wait of `--timeout` is over, or the run's deadline passes. A plain timer, not
 * AbortSignal.timeout/any: a composite signal nobody else holds may be collected before it fires.
 */
function timeUp(target: WireTarget): { expired: Promise<"aborted">; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const expired = new Promise<"aborted">((resolve) => {
    timer = setTimeout(() => resolve("aborted"), target.timeoutMs);
    onAbort = () => resolve("aborted");
    if (target.deadline?.aborted) resolve("aborted");
    else target.deadline?.addEventListener("abort", onAbort, { once: true });
  });
  return {
    expired,
    stop: () => {
      clearTimeout(timer);
      if (onAbort) target.deadline?.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * Sends raw bytes on a fresh connection and reads one answer, within the timeout and the answer
 * limit. With `stall`, the connection is left open after the bytes (the request is unfinished) and
 * the server is expected to answer anyway. After an answer, the connection must be closed by the
 * server or still answer a second request: one that does neither within the timeout is `hanging`.
 */
export async function sendRaw(target: WireTarget, method: string, pieces: readonly Piece[]): Promise<WireOutcome> {
  const socket = open(target.url);
  let connected = false;
  socket.once(target.url.protocol === "https:" ? "secureConnect" : "connect", () => (connected = true));
  socket.on("error", () => {});
  const wait = timeUp(target);
  const stoppedBy = () => (target.deadline?.aborted ? "the run's deadline passed (--max-time)" : `nothing within ${target.timeoutMs} ms (--timeout)`);
  let began = false;
  try {
    const { view, detach } = readingView(socket);
    const request = new ClientRequest({ createConnection: () => view, method, path: "/", headers: {}, setHost: false });
    const answered = new Promise<RawAnswer | WireOutcome>((resolve) => {
      request.on("error", (error: Error & { code?: string }) => {
        const why = `the connection ended without an answer (${error.code ?? error.message})`;
        resolve(connected ? { kind: "cut", why } : { kind: "unreachable", why });
      });
      request.on("response", (response) => {
        began = true;
        readUpTo(response, target.maxAnswerBytes, {
          overflow: () => {
            resolve({ kind: "unfinished-answer", why: `a ${response.statusCode} answer longer than ${target.maxAnswerBytes} bytes (--max-answer-bytes)` });
            socket.destroy();
          },
          end: (body) => resolve({ status: response.statusCode ?? 0, contentType: response.headers["content-type"] ?? null, bodyText: body.toString("utf8") }),
        });
        response.on("error", (error: Error & { code?: string }) => resolve({ kind: "unfinished-answer", why: `a ${response.statusCode} answer that broke off (${error.code ?? error.message})` }));
      });
    });
    request.end();
    socket.write(rawBytes(pieces, target.apiKey));
    const first = await Promise.race([answered, wait.expired]);
    detach();
    if (first === "aborted") return began ? { kind: "unfinished-answer", why: `an answer that did not end: ${stoppedBy()} after its head` } : { kind: "silent", why: stoppedBy() };
    if ("kind" in first) return first;
    return { kind: "answer", answer: first, connection: await afterAnswer(socket, target) };
  } finally {
    wait.stop();
    socket.destroy();
  }
}

/**
 * Whether the target still takes connections: undefined when a fresh one is made within the
 * timeout, else why not. It sends nothing, so that a proxy in front reports and counts nothing.
 */
export async function stillAccepts(target: WireTarget): Promise<string | undefined> {
  const socket = open(target.url);
  const wait = timeUp(target);
  try {
    const verdict = new Promise<string | undefined>((resolve) => {
      socket.once(target.url.protocol === "https:" ? "secureConnect" : "connect", () => resolve(undefined));
      socket.on("error", (error: Error & { code?: string }) => resolve(`a new connection then failed (${error.code ?? error.message})`));
    });
    const result = await Promise.race([verdict, wait.expired]);
    return result === "aborted" ? `a new connection was not made within ${target.timeoutMs} ms (--timeout)` : result;
  } finally {
    wait.stop();
    socket.destroy();
  }
}

/**
 * Whether the target still answers a plain request on a fresh connection: undefined when it does,
 * else why not. Any HTTP answer counts; a refused connection, a close without an answer or
 * silence within the timeout do not.
 */
export async function stillAnswers(target: WireTarget): Promise<string | undefined> {
  const socket = open(target.url);
  let failed: string | undefined;
  socket.on("error", (error: Error & { code?: string }) => (failed ??= `a plain request then failed (${error.code ?? error.message})`));
  try {
    const connection = await afterAnswer(socket, target);
    if (connection === "reusable") return undefined;
    if (connection === "broken") return "what came back is not HTTP";
    if (connection === "hanging") return `a plain request then got nothing within ${target.timeoutMs} ms (--timeout)`;
    return failed ?? "a plain request then got no answer: the connection closed";
  } finally {
    socket.destroy();
  }
}

/** Whether the server closed the connection after its answer (or a fresh one), or still serves it. */
async function afterAnswer(socket: Socket, target: WireTarget): Promise<Connection> {
  if (socket.destroyed || socket.readableEnded) return "closed";
  const wait = timeUp(target);
  const verdict = new Promise<"closed" | "reusable" | "broken">((resolve) => {
    let seen = "";
    socket.on("data", (chunk: Buffer) => {
      seen += chunk.toString("latin1", 0, Math.min(chunk.length, 16));
      if (seen.length >= 12) resolve(/^HTTP\/1\.[01] \d{3}/.test(seen) ? "reusable" : "broken");
    });
    socket.on("end", () => resolve("closed"));
    socket.on("close", () => resolve("closed"));
  });
  // A second request, on a connection the server left open.
  socket.write(`GET ${target.url.pathname.replace(/\/+$/, "")}/ HTTP/1.1\r\nHost: ${target.url.host}\r\nConnection: close\r\n\r\n`, "latin1");
  const result = await Promise.race([verdict, wait.expired]);
  wait.stop();
  return result === "aborted" ? "hanging" : result;
}
