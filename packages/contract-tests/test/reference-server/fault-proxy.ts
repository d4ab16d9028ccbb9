import type { IncomingMessage } from "node:http";
import { contractOf, type Problem } from "@api-contracts/contract-core";
import { createEdgeServer, listen } from "@api-contracts/contract-core/server";
import type { Service } from "@api-contracts/reference-server";
import { KIT_TARGET_LIMITS } from "./helpers.js";

/** A request on its way to the target; a fault may change any part of it. */
export interface ProxiedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: string;
}

/** The target's answer on its way back; a fault may change any part of it. */
export interface ProxiedResponse {
  status: number;
  headers: Headers;
  body: string;
}

/** One deliberate deviation from the contract, applied by the proxy to matching traffic. */
export interface Fault {
  request?(request: ProxiedRequest): void;
  response?(request: ProxiedRequest, response: ProxiedResponse, upstream: Upstream): void | Promise<void>;
}

/** Lets a fault send extra requests of its own to the target. */
export type Upstream = (method: string, path: string, headers: Headers, body?: string) => Promise<Response>;

export interface FaultProxy {
  url: string;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Larger declared bodies are refused with 413 before reading: the proxy keeps the HTTP edge of the server behind it. */
const BODY_LIMIT = 16 * 1024 * 1024;

/**
 * Starts an HTTP proxy on 127.0.0.1 (port 0) that forwards to `target` and applies `fault`. Its
 * own HTTP edge answers as the API does (parser refusals, deadlines, an oversized body), so that
 * with no fault the kit's HTTP probes pass through it too.
 */
export async function startFaultProxy(service: Service, target: string, fault: Fault): Promise<FaultProxy> {
  const upstream: Upstream = (method, path, headers, body) => fetch(new URL(path, target), { method, headers, body });
  const errors = contractOf(service);
  const word = (problem: Problem) => errors.reply(problem);
  // The kit keeps connections open between checks, which may pause for seconds while they reduce a
  // failure: a connection closed by the proxy meanwhile would be reset under the next request.
  const limits = { ...KIT_TARGET_LIMITS, keepAliveTimeoutMs: 120_000 };
  const server = createEdgeServer(limits, async (req, res) => {
    if (Number(req.headers["content-length"] ?? 0) > BODY_LIMIT) {
      const reply = word({ kind: "too-large", limit: BODY_LIMIT });
      res.writeHead(reply.status, { "content-type": "application/json", connection: "close" });
      res.end(JSON.stringify(reply.body));
      return;
    }
    try {
      const url = new URL(req.url ?? "/", "http://proxy");
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string" && name !== "host" && name !== "content-length" && name !== "connection") headers.set(name, value);
      }
      const request: ProxiedRequest = { method: req.method ?? "GET", path: url.pathname, query: url.searchParams, headers, body: await readBody(req) };
      fault.request?.(request);
      const search = request.query.toString();
      const answer = await upstream(request.method, `${request.path}${search ? `?${search}` : ""}`, request.headers, request.method === "GET" || request.method === "HEAD" ? undefined : request.body);
      const responseHeaders = new Headers(answer.headers);
      responseHeaders.delete("content-length");
      responseHeaders.delete("content-encoding");
      responseHeaders.delete("transfer-encoding");
      const response: ProxiedResponse = { status: answer.status, headers: responseHeaders, body: await answer.text() };
      await fault.response?.(request, response, upstream);
      const outgoing: Record<string, string> = {};
      response.headers.forEach((value, name) => (outgoing[name] = value));
      res.writeHead(response.status, outgoing);
      res.end(response.body);
    } catch (error) {
      res.writeHead(502, { "content-type": "text/plain" });
      res.end(`fault proxy: ${(error as Error).message}`);
    }
  }, word);
  const { url } = await listen(server, 0, "127.0.0.1");
  return {
    url,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

/** Rewrites a JSON body in place; leaves non-JSON bodies alone. */
export function editJson(response: ProxiedResponse, edit: (body: Record<string, unknown>) => unknown): void {
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    return;
  }
  const result = edit(body as Record<string, unknown>);
  response.body = JSON.stringify(result === undefined ? body : result);
}

export function jsonOf(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
