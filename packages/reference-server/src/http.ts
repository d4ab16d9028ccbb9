import type { RequestListener, Server, ServerResponse } from "node:http";
import type { ApiContract, IncomingRequest, ReadRequest, WordingContext } from "@api-contracts/contract-core";
import { BrokenOffError, createEdgeServer, DEFAULT_LINGER, readBody } from "@api-contracts/contract-core/server";

/** A status and JSON body, as handlers return them. */
export interface Answer {
  status: number;
  body: unknown;
}

/** The business rules of one operation: they run only on a request the contract's decision accepted, as it read it. */
export type Handler = (read: ReadRequest) => Answer;

/** What serves one API: its contract, the keys it knows, its handlers by operationId. */
export interface ServedApi {
  contract: ApiContract;
  acceptsKey(key: string): boolean;
  /** Placeholders of its error bodies that the server fills (the facts' `errors.placeholders`). */
  context?: WordingContext;
  handlers: Readonly<Record<string, Handler>>;
}

/** How much a client may send and how long it may take; see the limits table in the README. */
export interface HttpLimits {
  /** Largest request body read, in bytes; a larger declared `Content-Length` is refused before reading. */
  bodyLimitBytes: number;
  /** Time allowed to receive a whole request (headers and body), in milliseconds. */
  requestTimeoutMs: number;
  /** Time allowed to receive the request headers, in milliseconds (at most `requestTimeoutMs`). */
  headersTimeoutMs: number;
  /** A connection with no traffic for this long is closed, in milliseconds. */
  idleTimeoutMs: number;
  /** Bytes a closing connection reads and drops of what its client still sends, after an early answer. */
  lingerBytes: number;
  /** Milliseconds a closing connection waits for its client to finish sending, after an early answer. */
  lingerMs: number;
}

/**
 * A request here is a small JSON document: 5 s to receive it whole is ample for any client that is
 * sending (Go's net/http guidance uses the same ReadTimeout), frees a stalled connection 60 times
 * sooner than Node's own 300 s, and stays below a client's usual 10 s timeout, so that a client
 * that stalls is told so (408) before it gives up (the kit's --timeout is such a client). The body
 * limit is each API's own (its facts' `limits.bodyBytes`).
 */
export const DEFAULT_HTTP_LIMITS: Omit<HttpLimits, "bodyLimitBytes"> = {
  requestTimeoutMs: 5_000,
  headersTimeoutMs: 5_000,
  idleTimeoutMs: 60_000,
  lingerBytes: DEFAULT_LINGER.maxBytes,
  lingerMs: DEFAULT_LINGER.maxMs,
};

/** `http://host:port` of a listening server, with an IPv6 host in brackets. */
export function addressUrl(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** Sends an answer as JSON; `close` ends the connection after it (a body left unread). */
function send(response: ServerResponse, { status, body }: Answer, close = false): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), ...(close ? { connection: "close" } : {}) });
  response.end(text);
}

/** The API's answer to a request read whole: the decision's refusal, or the handler's answer; a handler that throws is a 500 without details. */
function answer(api: ServedApi, request: IncomingRequest): Answer {
  try {
    const decision = api.contract.decide(request, { acceptsKey: api.acceptsKey });
    return api.contract.refusalOf(decision, api.context) ?? api.handlers[decision.operation!.operationId]!(decision.read!);
  } catch {
    return api.contract.reply({ kind: "internal" }, undefined, api.context);
  }
}

/**
 * The request listener of one API: it reads the body (at most `bodyLimitBytes`; beyond, 413 and the
 * connection closed), asks the contract's decision, which routes the request and judges it in the
 * live service's order, and answers a refusal in the API's words; the operation's handler runs
 * only on a request the decision accepted. Every operation of the description needs a handler.
 */
export function apiListener(api: ServedApi, bodyLimitBytes: number): RequestListener {
  const unserved = api.contract.validators.listOperations().filter((operation) => !Object.hasOwn(api.handlers, operation.operationId));
  if (unserved.length > 0) throw new Error(`no handler for ${unserved.map((operation) => operation.operationId).join(", ")}`);
  return (request, response) => {
    readBody(request, bodyLimitBytes).then(
      (body) => {
        if (body === undefined) return send(response, api.contract.reply({ kind: "too-large", limit: bodyLimitBytes }, undefined, api.context), true);
        // Every value of a repeated header, for the one header reader of the decision.
        send(response, answer(api, { method: request.method ?? "", target: request.url ?? "", headers: request.headersDistinct, body }));
      },
      (error: unknown) => {
        // A request broken off has no one to answer.
        if (!(error instanceof BrokenOffError)) send(response, api.contract.reply({ kind: "internal" }, undefined, api.context), true);
      },
    )
      // An answer that cannot be sent: the connection is all that is left to end.
      .catch(() => response.destroy());
  };
}

/**
 * The HTTP server of one API around its listener (contract-core's edge: deadlines, lingering close,
 * and Node's parser refusals and timeouts answered in the API's shape), not listening yet.
 */
export function apiServer(api: ServedApi, listener: RequestListener, limits: HttpLimits): Server {
  return createEdgeServer(
    {
      requestTimeoutMs: limits.requestTimeoutMs,
      headersTimeoutMs: limits.headersTimeoutMs,
      idleTimeoutMs: limits.idleTimeoutMs,
      linger: { maxBytes: limits.lingerBytes, maxMs: limits.lingerMs },
    },
    listener,
    (problem) => api.contract.reply(problem, undefined, api.context),
  );
}
