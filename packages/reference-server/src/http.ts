import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { ValidateFunction } from "ajv";
import { authorizationProblem, fieldErrors, type ContractErrors, type FieldError, type Problem, type RequestPart, type WordingContext } from "@api-contracts/contract-core";
import { answerParserError, createEdgeServer, DEFAULT_LINGER } from "@api-contracts/contract-core/server";

/** A status and JSON body, as handlers return them. */
export interface Answer {
  status: number;
  body: unknown;
}

/**
 * How one server refuses requests: the API's own wording from the contract, the one key it
 * accepts, and what its error bodies name (the key's environment). Every answer the server sends
 * outside a handler comes from here.
 */
export class Refusals {
  constructor(
    readonly contract: ContractErrors,
    private readonly apiKey: string,
    private readonly context: WordingContext = {},
  ) {}

  /** The documented answer to a problem; with the operation, an example the API prefers may be served. */
  reply(problem: Problem, operation?: { method: string; path: string }): Answer {
    return this.contract.reply(problem, operation, this.context);
  }

  /** Why an `Authorization` header does not carry the accepted key; null when it does. */
  authenticate(authorization: string | undefined): Problem | null {
    const reason = authorizationProblem(authorization, (key) => key === this.apiKey);
    return reason ? { kind: "unauthorized", reason } : null;
  }
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
  /** Bytes a closing connection reads and drops of what its client still sends, after an early answer. */
  lingerBytes: number;
  /** Milliseconds a closing connection waits for its client to finish sending, after an early answer. */
  lingerMs: number;
}

/**
 * A request here is a small JSON document: 5 s to receive it whole is ample for any client that is
 * sending (Go's net/http guidance uses the same ReadTimeout), frees a stalled connection 60 times
 * sooner than Node's own 300 s, and stays below a client's usual 10 s timeout, so that a client
 * that stalls is told so (408) before it gives up (the kit's --timeout is such a client).
 */
export const DEFAULT_HTTP_LIMITS: Omit<HttpLimits, "bodyLimitBytes"> = {
  requestTimeoutMs: 5_000,
  headersTimeoutMs: 5_000,
  idleTimeoutMs: 60_000,
  lingerBytes: DEFAULT_LINGER.maxBytes,
  lingerMs: DEFAULT_LINGER.maxMs,
};

/** Longest path parameter routed; ids in both APIs are UUIDs (36 characters). */
export const MAX_PARAM_LENGTH = 100;

/** Parsed, validated request members handed to a handler. */
export interface HandlerInput<Body, Query, Params> {
  body: Body;
  query: Query;
  params: Params;
  headers: Record<string, string | undefined>;
}

/** Raised by the JSON body parser so that the error handler can answer in the API's own words. */
class MalformedJsonError extends Error {
  readonly malformedJson = true;
}

/** `http://host:port` of a listening server, with an IPv6 host in brackets. */
export function addressUrl(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/**
 * A Fastify instance whose parse errors, unknown routes, unreadable requests, timeouts and
 * unexpected failures all answer in the API's documented error shape (never Fastify's or Node's own).
 */
export function createApp(refusals: Refusals, limits: HttpLimits): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: limits.bodyLimitBytes,
    return503OnClosing: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    serverFactory: (handler) =>
      createEdgeServer(
        {
          requestTimeoutMs: limits.requestTimeoutMs,
          headersTimeoutMs: limits.headersTimeoutMs,
          idleTimeoutMs: limits.idleTimeoutMs,
          linger: { maxBytes: limits.lingerBytes, maxMs: limits.lingerMs },
        },
        handler,
      ),
    clientErrorHandler: (error, socket) => answerParserError(error, socket, (problem) => refusals.reply(problem)),
    frameworkErrors: (error, _request, reply) => {
      const message = error.code === "FST_ERR_MAX_PARAM_LENGTH" ? `A path parameter is longer than ${MAX_PARAM_LENGTH} characters` : "The request path does not decode as a URL";
      const answer = refusals.reply({ kind: "bad-request", message });
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
    let problem: Problem;
    if (error.malformedJson) problem = { kind: "malformed-json" };
    // Fastify raises this from a declared Content-Length before reading the body, and Node then
    // closes the connection instead of reading the rest.
    else if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") problem = { kind: "too-large", limit: limits.bodyLimitBytes };
    else if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) problem = { kind: "bad-request", message: "The request body could not be read" };
    else problem = { kind: "internal" };
    const answer = refusals.reply(problem);
    void reply.code(answer.status).send(answer.body);
  });
  app.setNotFoundHandler((request, reply) => {
    const answer = refusals.reply({ kind: "not-found", method: request.method, path: request.url });
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

/** A required body that did not come, as the validators of the contract report it. */
const MISSING_BODY: FieldError = { in: "body", path: [], keyword: "required", params: {}, message: "is required" };

/**
 * Registers one operation of the bundle: authentication, then path, query, header and body
 * validation against the operation's own schemas (values coerced in place, the first part at
 * fault refused), then the handler.
 */
export function registerOperation<Body, Query, Params>(
  app: FastifyInstance,
  refusals: Refusals,
  method: "GET" | "POST" | "DELETE",
  path: string,
  handler: (input: HandlerInput<Body, Query, Params>) => Answer,
): void {
  const op = refusals.contract.validators.request(method, path);
  const operation = { method, path };
  const invalid = (errors: FieldError[]): Answer => refusals.reply({ kind: "invalid", errors }, operation);
  const check = (validate: ValidateFunction, value: unknown, where: RequestPart): Answer | null => (validate(value) ? null : invalid(fieldErrors(validate.errors, where)));
  const url = path.replace(/\{([^}]+)\}/g, ":$1");
  app.route({
    method,
    url,
    handler: (request: FastifyRequest, reply: FastifyReply) => {
      const send = (answer: Answer): FastifyReply => reply.code(answer.status).send(answer.body);
      const unauthenticated = refusals.authenticate(request.headers.authorization);
      if (unauthenticated) return send(refusals.reply(unauthenticated, operation));
      const params = { ...(request.params as Record<string, string>) };
      const query = { ...(request.query as Record<string, unknown>) };
      const headers = headerRecord(request);
      const documented = Object.fromEntries(Object.keys((op.headers.schema as { properties: object }).properties).filter((h) => headers[h] !== undefined).map((h) => [h, headers[h]]));
      const refused = check(op.pathParams, params, "path") ?? check(op.query, query, "query") ?? check(op.headers, documented, "header");
      if (refused) return send(refused);
      let body: unknown = request.body;
      if (op.body) {
        if (body === undefined && !op.bodyRequired) body = {};
        if (body === undefined) return send(invalid([MISSING_BODY]));
        const wrongBody = check(op.body, body, "body");
        if (wrongBody) return send(wrongBody);
      }
      return send(handler({ body: body as Body, query: query as Query, params: params as Params, headers }));
    },
  });
}

/** Listens on host:port and returns the URL and a close function. */
export async function listen(app: FastifyInstance, host: string, port: number): Promise<{ url: string; port: number; close(): Promise<void> }> {
  await app.listen({ host, port });
  const address = app.server.address();
  const bound = typeof address === "object" && address !== null ? address.port : port;
  return { url: addressUrl(host, bound), port: bound, close: () => app.close() };
}
