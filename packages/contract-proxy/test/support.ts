import { spawn } from "node:child_process";
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Upstream {
  url: string;
  /** Requests the upstream received, in order. */
  received: Array<{ method: string; url: string; rawHeaders: string[]; body: Buffer }>;
  close(): Promise<void>;
}

/** A small upstream that answers as `answer` says, recording what it was sent. */
export async function fakeUpstream(answer: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void): Promise<Upstream> {
  const received: Upstream["received"] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      received.push({ method: req.method!, url: req.url!, rawHeaders: req.rawHeaders, body });
      answer(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Answers every request with this status and JSON body. */
export const json = (status: number, body: unknown, headers: Record<string, string> = {}) => (_req: IncomingMessage, res: ServerResponse) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers }).end(text);
};

export interface Reply {
  status: number;
  headers: IncomingMessage["headers"];
  rawHeaders: string[];
  text: string;
  json: any;
}

/** Sends one request exactly as given (node:http, so that headers fetch would refuse can be sent). */
export function send(base: string, method: string, path: string, headers: Record<string, string> | string[] = {}, body?: string | Buffer): Promise<Reply> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode!, headers: res.headers, rawHeaders: res.rawHeaders, text, json: parsed });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

export const entitlementsKey = "am_sk_test_0123456789abcdef";
export const webdataKey = "fc-0123456789abcdef0123456789abcdef";

export function postJson(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return send(base, "POST", path, { "content-type": "application/json", ...headers }, JSON.stringify(body));
}

/** Runs the contract-proxy command (the built one) with these arguments (and these variables besides the test's), collecting its output. */
export function runProxyCommand(args: string[], env: Record<string, string> = {}) {
  const bin = new URL("../bin/contract-proxy.js", import.meta.url).pathname;
  const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c));
  child.stderr.on("data", (c: Buffer) => (stderr += c));
  return { child, out: () => stdout, err: () => stderr };
}
