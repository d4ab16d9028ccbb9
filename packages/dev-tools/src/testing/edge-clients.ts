// Clients that misbehave the way ordinary ones do, for tests of a server's edge: a body over the
// limit sent by fetch (undici), Node's http.request or curl, and a body that never ends.
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * `late-reader` writes its whole request before it looks for an answer, as a client on a busy
 * machine does: it loses an answer that a reset connection discarded.
 */
export type OversizedClient = "fetch" | "http.request" | "curl" | "late-reader";

/** What a client saw: the answer's status and body, or the error that stood in for it. */
export interface ClientOutcome {
  status?: number;
  body?: unknown;
  error?: string;
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** POSTs `bytes` bytes of JSON-looking body to `url` with `client`, as an application would. */
export async function postOversized(url: string, bytes: number, client: OversizedClient, headers: Record<string, string> = {}): Promise<ClientOutcome> {
  const body = Buffer.alloc(bytes, 0x20);
  const all = { "content-type": "application/json", ...headers };
  if (client === "fetch") {
    try {
      const response = await fetch(url, { method: "POST", headers: all, body });
      return { status: response.status, body: parse(await response.text()) };
    } catch (error) {
      return { error: String((error as { cause?: unknown }).cause ?? error) };
    }
  }
  if (client === "late-reader") {
    const target = new URL(url);
    return new Promise((resolve) => {
      // Not half-open: once the server has answered and closed its side, this client closes too.
      const socket = connect({ port: Number(target.port), host: target.hostname });
      const received: Buffer[] = [];
      let error: string | undefined;
      socket.on("error", (e) => void (error = String(e)));
      socket.on("connect", () => {
        const head = [`POST ${target.pathname} HTTP/1.1`, `Host: ${target.host}`, `Content-Length: ${bytes}`, "Connection: close", ...Object.entries(all).map(([n, v]) => `${n}: ${v}`)];
        socket.write(`${head.join("\r\n")}\r\n\r\n`);
        socket.pause();
        socket.write(body, () => setTimeout(() => socket.resume(), 200));
      });
      socket.on("data", (chunk: Buffer) => void received.push(chunk));
      socket.on("close", () => {
        const text = Buffer.concat(received).toString("utf8");
        const match = /^HTTP\/1\.1 (\d{3})[^]*?\r\n\r\n([^]*)$/.exec(text);
        resolve(match ? { status: Number(match[1]), body: parse(match[2]!) } : { error: error ?? `no answer (${text.length} bytes)` });
      });
    });
  }
  if (client === "http.request") {
    // A promise settles once: whichever of the answer and the error comes first is the outcome.
    return new Promise<ClientOutcome>((settle) => {
      const req = httpRequest(url, { method: "POST", headers: { ...all, "content-length": String(bytes) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => settle({ status: res.statusCode, body: parse(Buffer.concat(chunks).toString("utf8")) }));
        res.on("error", (error) => settle({ error: String(error) }));
      });
      // An error after the whole answer arrived is the connection closing, not a lost answer.
      req.on("error", (error) => setTimeout(() => settle({ error: String(error) }), 50));
      req.end(body);
    });
  }
  const dir = mkdtempSync(path.join(tmpdir(), "oversized-"));
  try {
    const file = path.join(dir, "body.json");
    writeFileSync(file, body);
    const args = ["-sS", "-X", "POST", "-H", "Expect: 100-continue", "--data-binary", `@${file}`, "-w", "\n%{http_code}", url];
    for (const [name, value] of Object.entries(all)) args.push("-H", `${name}: ${value}`);
    return await new Promise((resolve) => {
      execFile("curl", args, { maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
        const at = stdout.lastIndexOf("\n");
        const status = Number(stdout.slice(at + 1));
        if (error && !(status > 0)) return resolve({ error: stderr.trim() || String(error) });
        resolve({ status, body: parse(stdout.slice(0, at)), ...(error ? { error: stderr.trim() } : {}) });
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What happened to a client that declared a huge body and kept sending it. */
export interface EndlessOutcome {
  /** The server closed the connection before the client stopped. */
  cutOff: boolean;
  /** Bytes the client managed to write before it was cut off (or gave up). */
  sentBytes: number;
  /** The start of what the server answered. */
  answer: string;
}

/**
 * Sends a request declaring `declaredBytes` of body and writes it for as long as the server reads,
 * giving up after `giveUpMs`. A server with a bounded lingering close cuts it off well before.
 */
export function sendEndlessBody(url: string, declaredBytes: number, headers: Record<string, string> = {}, giveUpMs = 30_000): Promise<EndlessOutcome> {
  const target = new URL(url);
  return new Promise((resolve) => {
    // Half-open: the server's FIN after its answer does not stop this client from sending.
    const socket = connect({ port: Number(target.port), host: target.hostname, allowHalfOpen: true });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sentBytes = 0;
    let answer = "";
    let done = false;
    const finish = (cutOff: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ cutOff, sentBytes, answer: answer.slice(0, 2048) });
    };
    const timer = setTimeout(() => finish(false), giveUpMs);
    const pump = () => {
      while (!done && socket.writable) {
        sentBytes += chunk.length;
        if (!socket.write(chunk)) return void socket.once("drain", pump);
      }
    };
    socket.on("data", (data: Buffer) => void (answer.length < 2048 && (answer += data.toString("latin1"))));
    socket.on("error", () => finish(true));
    socket.on("close", () => finish(true));
    socket.on("connect", () => {
      const lines = [`POST ${target.pathname} HTTP/1.1`, `Host: ${target.host}`, "Content-Type: application/json", `Content-Length: ${declaredBytes}`];
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
      pump();
    });
  });
}

/** The oversized-body clients this machine can run: curl only where it is installed (a line says how to get it). */
export function availableClients(): OversizedClient[] {
  try {
    execFileSync("curl", ["--version"], { stdio: "ignore" });
    return ["fetch", "http.request", "curl", "late-reader"];
  } catch {
    console.warn("curl is not installed: the curl cases are skipped (apt-get install -y curl)");
    return ["fetch", "http.request", "late-reader"];
  }
}

/** How an answer arrived, for tests of injected faults: its head and body, in how many pieces and when, or the error instead. */
export interface TimedOutcome {
  status?: number;
  headers?: Record<string, string | string[] | undefined>;
  body?: string;
  /** Pieces the body arrived in. */
  chunks: number;
  /** Milliseconds from the request to the end of the answer (or to the error). */
  ms: number;
  /** Milliseconds to the answer's head. */
  headMs?: number;
  error?: string;
}

/** One request on a connection of its own (no agent), as sent; gives up after `abortMs` when given. */
export function timedExchange(url: string, options: { body?: string; headers?: Record<string, string>; abortMs?: number; method?: string } = {}): Promise<TimedOutcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const req = httpRequest(url, { method: options.method ?? "POST", agent: false, headers: { "content-type": "application/json", ...options.headers } }, (res) => {
      const headMs = Date.now() - started;
      let body = "";
      let chunks = 0;
      res.on("data", (chunk: Buffer) => ((body += chunk.toString()), chunks++));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body, chunks, ms: Date.now() - started, headMs }));
      res.on("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message, chunks, ms: Date.now() - started, headMs }));
    });
    req.on("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message, chunks: 0, ms: Date.now() - started }));
    if (options.abortMs !== undefined) setTimeout(() => req.destroy(new Error("client gave up")), options.abortMs).unref();
    req.end(options.body);
  });
}
