// A local HTTP server whose every answer the test scripts, to make it misbehave on purpose or to
// see exactly what went over the wire; and the bundle's examples, to know what the mock answers.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { bundlePath, deref } from "../generate.js";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface LocalServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type Handler = (request: RecordedRequest, res: ServerResponse, attempt: number) => void;

/** Starts a server on 127.0.0.1 with a free port; `handler` receives each request and its 1-based number. */
export async function startServer(handler: Handler): Promise<LocalServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const recorded = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      requests.push(recorded);
      handler(recorded, res, requests.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What a flaky server does with one request: answer with this status, drop the connection, or never answer. */
export type Failure = number | "drop" | "hang";

/**
 * Starts a server that meets its first requests with `failures`, in order (a status is answered
 * with `errorBody(status)`), and every later one with 200 and `success`.
 */
export function startFlakyServer(success: unknown, failures: Failure[], errorBody: (status: number) => unknown): Promise<LocalServer> {
  return startServer((_request, res, attempt) => {
    const failure = failures[attempt - 1];
    if (failure === "drop") return res.socket?.destroy();
    if (failure === "hang") return;
    if (failure === undefined) return sendJson(res, 200, success);
    sendJson(res, failure, errorBody(failure));
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

type Json = Record<string, any>;

/** The bundle of `api`, as the package at `packageDir` (by default the one under test) resolves it. */
export function loadBundle(api: string, packageDir = process.cwd()): Json {
  return JSON.parse(readFileSync(bundlePath(api, packageDir), "utf8")) as Json;
}

const resolveRef = (doc: Json, node: unknown): Json => deref(doc, node) as Json;

function matchPath(template: string, path: string): boolean {
  return new RegExp(`^${template.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path);
}

/**
 * The example for one answer of an operation: `status` picks the response (default: the first
 * 2xx), `name` picks a named example (default: the first one).
 */
export function specExample(doc: Json, method: string, path: string, status?: string, name?: string): { status: number; body: unknown } {
  const template = Object.keys(doc.paths).find((t) => matchPath(t, path.split("?")[0] ?? ""));
  const operation = template ? doc.paths[template][method.toLowerCase()] : undefined;
  if (!operation) throw new Error(`no operation ${method} ${path} in the bundle`);
  const code = status ?? Object.keys(operation.responses).find((s) => s.startsWith("2"));
  const response = resolveRef(doc, operation.responses[code ?? ""]);
  const media = response?.content?.["application/json"];
  if (!media) throw new Error(`${method} ${path} has no JSON ${code} response`);
  if (media.example !== undefined) return { status: Number(code), body: media.example };
  const examples: Json = media.examples ?? {};
  const key = name ?? Object.keys(examples)[0];
  const example = key === undefined ? undefined : resolveRef(doc, examples[key]);
  if (!example) throw new Error(`${method} ${path} ${code} has no example ${name ?? ""}`);
  return { status: Number(code), body: example.value };
}

/** Every named example of every webhook payload of a bundle, in document order. */
export function webhookExamples(doc: Json): Array<{ event: string; name: string; value: unknown }> {
  return Object.entries<Json>(doc.webhooks ?? {}).flatMap(([event, item]) => {
    const examples: Json = resolveRef(doc, resolveRef(doc, item).post?.requestBody)?.content?.["application/json"]?.examples ?? {};
    return Object.entries(examples).map(([name, example]) => ({ event, name, value: resolveRef(doc, example as Json).value as unknown }));
  });
}
