import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { runInProcess, type CliRun } from "@api-contracts/dev-tools/testing/cli-run";
import { main } from "../src/cli.js";

export type { CliRun };

/** Runs the `contract-test` command line in-process and captures what it prints. */
export const runCli = (args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> => runInProcess(main, args, env);

/** The fixtures file of the kit's own tests (ids a spec-faithful mock accepts). */
export const FIXTURES_FILE = new URL("./fixtures.json", import.meta.url).pathname;

export interface FakeTarget {
  url: string;
  /** Requests received so far. */
  requests: number;
  /** The Authorization header of every request, in order (absent ones as ""). */
  authorizations: string[];
  close(): Promise<void>;
}

/** How a fake target answers its `nth` request (counted from 1). */
export type Answer = (req: IncomingMessage, res: ServerResponse, nth: number) => void | Promise<void>;

/** Starts a misbehaving target on 127.0.0.1 (port 0); `close` also ends connections it left hanging. */
export async function startFakeTarget(answer: Answer): Promise<FakeTarget> {
  const target: FakeTarget = { url: "", requests: 0, authorizations: [], close: async () => {} };
  const server = createServer((req, res) => {
    target.requests++;
    target.authorizations.push(req.headers.authorization ?? "");
    void answer(req, res, target.requests);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  target.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  target.close = () =>
    new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    });
  return target;
}

/** Sends a request on to `upstream` and hands back its answer, for a fake to pass on or change. */
export async function forward(upstream: string, req: IncomingMessage): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    // Framing is this hop's own, and a value fetch cannot send (a control byte a lenient parser let through) stays behind.
    if (typeof value === "string" && !["host", "content-length", "connection", "transfer-encoding"].includes(name) && !/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) headers.set(name, value);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const answer = await fetch(new URL(req.url ?? "/", upstream), { method: req.method, headers, body: hasBody ? Buffer.concat(chunks) : undefined });
  const body = await answer.text();
  const outgoing: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!["content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive"].includes(name)) outgoing[name] = value;
  });
  return { status: answer.status, headers: outgoing, body };
}

/** Answers with what `upstream` answered. */
export async function passOn(upstream: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const answer = await forward(upstream, req);
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}
