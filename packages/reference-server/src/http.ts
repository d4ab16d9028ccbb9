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
  tooLarge(): Answer;
  notFound(method: string, url: string): Answer;
  internal(): Answer;
}

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
 * A Fastify instance whose parse errors, unknown routes and unexpected failures all answer in
 * the API's documented error shape (never Fastify's own).
 */
export function createApp(dialect: Dialect, bodyLimit = 1024 * 1024): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit, return503OnClosing: false });
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
    else if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") answer = dialect.tooLarge();
    else if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) answer = dialect.malformedJson();
    else answer = dialect.internal();
    void reply.code(answer.status).send(answer.body);
  });
  app.setNotFoundHandler((request, reply) => {
    const answer = dialect.notFound(request.method, request.url);
    void reply.code(answer.status).send(answer.body);
  });
  return app;
}

function headerRecord(request: FastifyRequest): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
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
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${bound}`,
    port: bound,
    close: async () => {
      await app.close();
    },
  };
}
