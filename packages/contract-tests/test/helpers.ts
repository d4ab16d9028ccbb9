import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { contractOf, type ErrorReply } from "@api-contracts/contract-core";
import { createEdgeServer, listen, readBody } from "@api-contracts/contract-core/server";
import { runInProcess, type CliRun } from "@api-contracts/dev-tools/testing/cli-run";
import { main } from "../src/cli.js";

export type { CliRun };

/** Runs the `contract-test` command line in-process and captures what it prints. */
export const runCli = (args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> => runInProcess(main, args, env);

/** A key of each API's form: Autumn refuses one without its prefix before looking it up, so the mock does too. */
export const KEYS = { entitlements: "am_sk_test_0123456789abcdef", webdata: "fc-0123456789abcdef0123456789abcdef" } as const;

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

/** A local server of an API under test, on contract-core's edge. */
export interface ApiServer {
  url: string;
  /** Requests received so far. */
  requests: number;
  close(): Promise<void>;
}

/**
 * A server of one registered API, on contract-core's HTTP edge (1 s request deadline), that answers
 * as the API's decision says: the API's refusal, or, for a request it serves, the operation's first
 * documented example of a 2xx (of the status `Prefer: code=<status>` asks for, when it documents
 * one). With `keys`, only those keys are known; `refuse` may change a refusal (a fault).
 */
export async function startDecisionServer(api: string, { keys, refuse = (reply) => reply }: { keys?: string[]; refuse?: (reply: ErrorReply) => ErrorReply } = {}): Promise<ApiServer> {
  const contract = contractOf(api);
  const limit = contract.api.limits.bodyBytes;
  const target: ApiServer = { url: "", requests: 0, close: async () => {} };
  const server = createEdgeServer({ requestTimeoutMs: 1_000, headersTimeoutMs: 1_000 }, (req, res) => {
    target.requests++;
    const send = (status: number, value: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, value === undefined ? headers : { ...headers, "content-type": "application/json" }).end(value === undefined ? undefined : JSON.stringify(value));
    readBody(req, limit).then((body) => {
      // Refused before the body is read, so the connection closes (and lingers, so that the client reads the 413).
      if (body === undefined) return send(413, contract.reply({ kind: "too-large", limit }).body, { connection: "close" });
      const decision = contract.decide({ method: req.method!, target: req.url!, headers: req.headers, body }, keys ? { acceptsKey: (key) => keys.includes(key) } : {});
      const refusal = contract.refusalOf(decision);
      if (refusal) {
        const given = refuse(refusal);
        return send(given.status, given.body);
      }
      const operation = contract.validators.walkedOperations().find((op) => op.pointer === decision.operation!.pointer)!;
      const asked = /code=(\d{3})/.exec(String(req.headers.prefer ?? ""))?.[1];
      const response = operation.responses.find((r) => r.status === asked) ?? operation.responses.find((r) => r.status.startsWith("2"))!;
      send(Number(response.status), response.media[0]?.examples[0]?.value);
    }, () => res.destroy());
  }, (problem) => contract.reply(problem));
  target.url = (await listen(server, 0, "127.0.0.1")).url;
  target.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return target;
}
