import { createServer, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { ErrorObject } from "ajv";
import type { SpecValidators } from "./spec.js";

/** A status and JSON body, as handlers return them. */
export interface Answer {
  status: number;
  body: unknown;
}

/** Which part of the request a validation failure is about. */
export type RequestPart = "body" | "query" | "params" | "headers";

/** How one API words its errors; every answer the server sends outside a handler comes from here. */
export interface Dialect {
  /** Checks the bearer key; returns the documented 401 answer, or null when the key is good. */
  authenticate(authorization: string | undefined): Answer | null;
  invalid(part: RequestPart, errors: ErrorObject[], operationId: string): Answer;
  malformedJson(): Answer;
  /** A request the server could not read as HTTP, or whose path does not decode. */
  badRequest(reason: string): Answer;
  tooLarge(): Answer;
  timeout(): Answer;
  notFound(method: string, url: string): Answer;
  internal(): Answer;
}

/** How much a client may send and how long it may take; see the limits table in the README. */
export interface HttpLimits {
  /** Largest request body accepted, in bytes; a larger declared `Content-Length` is refused before reading. */
  bodyLimitBytes: number;
  /** Time allowed to receive a whole request (headers and body), in milliseconds. */
  requestTimeoutMs: number;
  /** Time allowed to receive the request headers, in milliseconds (at most `requestTimeoutMs`). */
  headersTimeoutMs: number;
  /** A connection with no traffic for this long is closed, in milliseconds. */
  idleTimeoutMs: number;
}

export const DEFAULT_HTTP_LIMITS: Omit<HttpLimits, "bodyLimitBytes"> = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  idleTimeoutMs: 60_000,
};

/** Idle keep-alive connections are closed after this long (Node's own default). */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** Longest path parameter routed; ids in both APIs are UUIDs (36 characters). */
export const MAX_PARAM_LENGTH = 100;

/** Parsed, validated request members handed to a handler. */
export interface HandlerInput<Body, Query, Params> {
  body: Body;
  query: Query;
  params: Params;
  headers: Record<string, string | undefined>;
  request: FastifyRequest;
}

/** Raised by the JSON body parser so that the error handler can answer in the API's own words. */
class MalformedJsonError extends Error {
  readonly malformedJson = true;
}

/**
 * The token of `Authorization: Bearer <token>` ("" when the scheme comes alone), or null when the
 * scheme is not Bearer or more than one word follows it. One split, so the cost stays linear in
 * the header's length whatever its spacing.
 */
export function bearerToken(authorization: string | undefined): string | null {
  if (authorization === undefined) return null;
  const [scheme = "", token = "", extra] = authorization.trim().split(/\s+/, 3);
  if (scheme.toLowerCase() !== "bearer" || extra !== undefined) return null;
  return token;
}

/** `http://host:port` of a listening server, with an IPv6 host in brackets. */
export function addressUrl(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

function reasonOfClientError(code: string | undefined): string {
  if (code === "HPE_HEADER_OVERFLOW") return "the request line or headers are larger than 16 KB";
  if (code === "HPE_INVALID_CHUNK_SIZE" || code === "HPE_INVALID_EOF_STATE") return "the chunked body is not valid chunked encoding";
  if (code === "HPE_UNEXPECTED_CONTENT_LENGTH" || code === "HPE_INVALID_TRANSFER_ENCODING") return "Content-Length and Transfer-Encoding conflict";
  return "the request is not valid HTTP";
}

/**
 * Answers a connection Node could not parse as HTTP (or that timed out) in the API's error shape,
 * written straight to the socket because no request object exists. Nothing is written when a
 * response has already started on that socket.
 */
function answerClientError(dialect: Dialect, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const answer = error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? dialect.timeout() : dialect.badRequest(reasonOfClientError(error.code));
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(answer.body);
  const head = [`HTTP/1.1 ${answer.status} ${answer.status === 408 ? "Request Timeout" : "Bad Request"}`, "Content-Type: application/json; charset=utf-8", `Content-Length: ${Buffer.byteLength(body)}`, "Connection: close"];
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`, () => socket.destroy());
}

/**
 * A Fastify instance whose parse errors, unknown routes, unreadable requests, timeouts and
 * unexpected failures all answer in the API's documented error shape (never Fastify's or Node's own).
 */
export function createApp(dialect: Dialect, limits: HttpLimits): FastifyInstance {
  const requestTimeout = limits.requestTimeoutMs;
  const headersTimeout = Math.min(limits.headersTimeoutMs, requestTimeout);
  const app = Fastify({
    logger: false,
    bodyLimit: limits.bodyLimitBytes,
    return503OnClosing: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Node checks the request and header deadlines on this interval (30 s by default), so it
    // follows the shortest deadline for a timeout to fire close to when it is due.
    serverFactory: (handler) => {
      const server = createServer(
        { requestTimeout, headersTimeout, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(headersTimeout / 4))) },
        handler,
      );
      server.setTimeout(limits.idleTimeoutMs);
      return server;
    },
    clientErrorHandler: (error, socket) => answerClientError(dialect, error, socket),
    frameworkErrors: (error, _request, reply) => {
      const reason = error.code === "FST_ERR_MAX_PARAM_LENGTH" ? `a path parameter is longer than ${MAX_PARAM_LENGTH} characters` : "the request path does not decode as a URL";
      const answer = dialect.badRequest(reason);
      void (reply as FastifyReply).code(answer.status).send(answer.body);
    },
  });
  app.removeAllContentTypeParsers();
  // Bodies are parsed as JSON whatever their content type: the official SDKs always send JSON,
  // and a wrong header should not turn a well-formed body into a different error.
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, text, done) => {
    const source = String(text);
    if (source.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(source));
    } catch {
      done(new MalformedJsonError("malformed JSON"), undefined);
    }
  });
  app.setErrorHandler((error: Error & { statusCode?: number; code?: string; malformedJson?: boolean }, _request, reply) => {
    let answer: Answer;
    if (error.malformedJson) answer = dialect.malformedJson();
    // Fastify raises this from a declared Content-Length before reading the body, and Node then
    // closes the connection instead of reading the rest.
    else if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") answer = dialect.tooLarge();
    else if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) answer = dialect.badRequest("the request body could not be read");
    else answer = dialect.internal();
    void reply.code(answer.status).send(answer.body);
  });
  app.setNotFoundHandler((request, reply) => {
    const answer = dialect.notFound(request.method, request.url);
    void reply.code(answer.status).send(answer.body);
  });
  return app;
}

/** Header values by name, in an object without a prototype so that no header name can reach one. */
function headerRecord(request: FastifyRequest): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = Object.create(null);
  for (const [name, value] of Object.entries(request.headers)) out[name] = Array.isArray(value) ? value.join(", ") : value;
  return out;
}

/**
 * Registers one operation of the bundle: authentication, then path, query, header and body
 * validation against the operation's own schemas, then the handler.
 */
export function registerOperation<Body, Query, Params>(
  app: FastifyInstance,
  spec: SpecValidators,
  dialect: Dialect,
  method: "GET" | "POST" | "DELETE",
  path: string,
  handler: (input: HandlerInput<Body, Query, Params>) => Answer,
): void {
  const op = spec.request(method, path);
  const url = path.replace(/\{([^}]+)\}/g, ":$1");
  app.route({
    method,
    url,
    handler: (request: FastifyRequest, reply: FastifyReply) => {
      const send = (answer: Answer): FastifyReply => reply.code(answer.status).send(answer.body);
      const unauthenticated = dialect.authenticate(request.headers.authorization);
      if (unauthenticated) return send(unauthenticated);
      const params = { ...(request.params as Record<string, string>) };
      if (!op.pathParams(params)) return send(dialect.invalid("params", op.pathParams.errors ?? [], op.operationId));
      const query = { ...(request.query as Record<string, unknown>) };
      if (!op.query(query)) return send(dialect.invalid("query", op.query.errors ?? [], op.operationId));
      const headers = headerRecord(request);
      const documented = Object.fromEntries(Object.keys((op.headers.schema as { properties: object }).properties).filter((h) => headers[h] !== undefined).map((h) => [h, headers[h]]));
      if (!op.headers(documented)) return send(dialect.invalid("headers", op.headers.errors ?? [], op.operationId));
      let body: unknown = request.body;
      if (op.body) {
        if (body === undefined && !op.bodyRequired) body = {};
        if (body === undefined) {
          return send(dialect.invalid("body", [{ keyword: "type", instancePath: "", schemaPath: "#/type", params: { type: "object" }, message: "must be object" }], op.operationId));
        }
        if (!op.body(body)) return send(dialect.invalid("body", op.body.errors ?? [], op.operationId));
      }
      return send(handler({ body: body as Body, query: query as Query, params: params as Params, headers, request }));
    },
  });
}

/** Listens on host:port and returns the URL and a close function. */
export async function listen(app: FastifyInstance, host: string, port: number): Promise<{ url: string; port: number; close(): Promise<void> }> {
  await app.listen({ host, port });
  const address = app.server.address();
  const bound = typeof address === "object" && address !== null ? address.port : port;
  return {
    url: addressUrl(host, bound),
    port: bound,
    close: async () => {
      await app.close();
    },
  };
}
