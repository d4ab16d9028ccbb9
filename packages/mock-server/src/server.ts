import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { errorAnswer, type Failure, type Violation } from "./errors.js";
import { parsePrefer } from "./prefer.js";
import {
  loadPrism,
  silentLogger,
  type MockConfig,
  type Either,
  type PrismOperation,
  type PrismRequest,
  type PrismResponse,
  type RouteComponent,
} from "./prism.js";
import { loadApi, operationKey, type ApiDescription, type Service } from "./spec.js";

export type { Service } from "./spec.js";

export interface MockServerOptions {
  service: Service;
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port to listen on; `0` picks a free one. Default `0`. */
  port?: number;
  /** Generate bodies from the schemas instead of serving the documented examples. Default `false`. */
  dynamic?: boolean;
  /** Seed for dynamic bodies, so that a run can be repeated. */
  seed?: number | string;
  /** Serve the stateful reference implementation instead of the examples. Default `false`. */
  stateful?: boolean;
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  bodyLimit?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;
const TOKEN = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json$/i;

/** A request refused before any example is chosen; carried through Prism as its error value. */
class Refusal extends Error {
  constructor(
    readonly operation: string | undefined,
    readonly failure: Failure,
  ) {
    super(failure.kind);
  }
}

/** What the server learned about the raw body before it was parsed. */
interface BodyState {
  tooLarge: boolean;
  mediaType?: string;
  jsonError?: string;
}

function authProblem(operation: PrismOperation, authorization: string | undefined) {
  const alternatives = operation.security ?? [];
  if (alternatives.length === 0 || alternatives.some((schemes) => schemes.length === 0)) return undefined;
  const bearer = alternatives.some((schemes) =>
    schemes.some((s) => s.type === "http" && s.scheme?.toLowerCase() === "bearer"),
  );
  if (!bearer) return undefined;
  if (authorization === undefined) return "missing" as const;
  if (/^Bearer\s*$/i.test(authorization)) return "empty" as const;
  return TOKEN.test(authorization) ? undefined : ("malformed" as const);
}

/** Resolves `Prefer` against what the operation documents, so that a wrong name is a clear 400. */
function preferredMock(operation: PrismOperation, header: string | undefined, base: MockConfig): MockConfig | string {
  const preference = parsePrefer(header);
  if (typeof preference === "string") return preference;
  const config: MockConfig = { ...base };
  if (preference.dynamic !== undefined) config.dynamic = preference.dynamic;
  const documented = operation.responses.map((r) => r.code);
  if (preference.code !== undefined) {
    if (!documented.includes(String(preference.code))) {
      return `Prefer code=${preference.code} is not documented for ${operation.iid ?? operation.path}; documented: ${documented.join(", ")}`;
    }
    config.code = preference.code;
  }
  if (preference.example !== undefined) {
    const name = preference.example;
    const holders = operation.responses.filter(
      (r) =>
        (preference.code === undefined || r.code === String(preference.code)) &&
        r.contents?.some((c) => c.examples?.some((x) => x.key === name)),
    );
    const holder = holders[0];
    if (!holder) {
      const names = operation.responses.flatMap((r) => r.contents?.flatMap((c) => c.examples?.map((x) => x.key) ?? []) ?? []);
      return `Prefer example=${name} is not documented for ${operation.iid ?? operation.path}; documented: ${[...new Set(names)].join(", ")}`;
    }
    config.code = Number(holder.code);
    config.exampleKey = name;
  }
  return config;
}

/** Prism's router sorts and template-matches every operation per request; the answer only depends on method and path. */
function createRoute(): RouteComponent {
  const { route } = loadPrism();
  const seen = new Map<string, ReturnType<RouteComponent>>();
  return ({ resources, input }) => {
    const key = `${input.method} ${input.url.path}`;
    let routed = seen.get(key);
    if (!routed) {
      routed = route({ resources, input });
      // Bounded, so that a stream of made-up paths cannot grow it without end.
      if (seen.size >= 4096) seen.clear();
      seen.set(key, routed);
    }
    return routed;
  };
}

/**
 * Checks a routed request in the documented order (token, body size, content type, JSON syntax,
 * schemas, `Prefer`) and answers it from the examples, or refuses it.
 */
function createAnswer(api: ApiDescription, base: MockConfig, limit: number) {
  const { mock: prismMock } = loadPrism();
  const logger = silentLogger();
  // With examples (not generated bodies) the answer depends only on the operation and the chosen example.
  const answered = new Map<string, Either<Error, PrismResponse>>();
  return (resource: PrismOperation, input: PrismRequest, body: BodyState): Either<Error, PrismResponse> => {
    const key = operationKey(resource.method, resource.path);
    const refuse = (failure: Failure) => ({ _tag: "Left" as const, left: new Refusal(key, failure) });
    const headers = input.headers ?? {};
    const auth = authProblem(resource, headers.authorization);
    if (auth) return refuse({ kind: "auth", problem: auth });
    const contents = resource.request?.body?.contents ?? [];
    if (contents.length > 0) {
      if (body.tooLarge) return refuse({ kind: "too-large", limit });
      if (body.mediaType !== undefined) {
        return refuse({ kind: "media-type", received: body.mediaType, supported: contents.map((c) => c.mediaType) });
      }
      if (body.jsonError !== undefined) return refuse({ kind: "json", message: body.jsonError });
    }
    const violations = api.requestValidator(resource.method, resource.path)({
      path: input.url.path,
      query: input.url.query ?? {},
      headers,
      body: input.body,
    });
    if (violations.length > 0) return refuse({ kind: "invalid", violations });
    const chosen = preferredMock(resource, headers.prefer, base);
    if (typeof chosen === "string") return refuse({ kind: "prefer", message: chosen });
    const mockInput = { data: input, validations: [] };
    if (chosen.dynamic) return prismMock({ resource, input: mockInput, config: chosen })(logger);
    const answerKey = `${key} ${chosen.code ?? ""} ${chosen.exampleKey ?? ""}`;
    let answer = answered.get(answerKey);
    if (!answer) {
      answer = prismMock({ resource, input: mockInput, config: chosen })(logger);
      answered.set(answerKey, answer);
    }
    return answer;
  };
}

function splitTarget(target: string): { path: string; query: Record<string, string | string[]> } {
  const mark = target.indexOf("?");
  const path = mark < 0 ? target : target.slice(0, mark);
  const query: Record<string, string | string[]> = {};
  if (mark >= 0) {
    for (const [name, value] of new URLSearchParams(target.slice(mark + 1))) {
      const seen = query[name];
      query[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
    }
  }
  return { path, query };
}

function readBody(req: IncomingMessage, limit: number): Promise<{ bytes: Buffer; size: number; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit the rest is drained and dropped, so the client still gets its answer.
      if (size <= limit) chunks.push(chunk);
    });
    req.on("end", () => resolve({ bytes: Buffer.concat(chunks), size, tooLarge: size > limit }));
    req.on("error", reject);
  });
}

function routeFailure(error: Error, method: string, path: string): Failure {
  const name = `${error.name} ${error.message}`;
  if (/NO_METHOD_MATCHED/.test(name)) return { kind: "route", status: 405, method, path };
  if (/NO_PATH_MATCHED|NO_RESOURCE_PROVIDED|NO_SERVER|must start with a slash/.test(name)) {
    return { kind: "route", status: 404, method, path };
  }
  return { kind: "internal", message: "The mock could not produce an answer for this request" };
}

function send(res: ServerResponse, status: number, headers: Record<string, unknown>, body: unknown): void {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && value !== null && name.toLowerCase() !== "content-length") out[name] = String(value);
  }
  if (body === undefined) {
    res.writeHead(status, out).end();
    return;
  }
  if (!Object.keys(out).some((h) => h.toLowerCase() === "content-type")) out["content-type"] = "application/json";
  const text = typeof body === "string" && !/json/i.test(String(out["content-type"] ?? out["Content-type"])) ? body : JSON.stringify(body);
  out["content-length"] = String(Buffer.byteLength(text));
  res.writeHead(status, out).end(text);
}

/** Builds the request handler of one API's mock. */
async function createMockHandler(options: MockServerOptions) {
  const api = await loadApi(options.service);
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const base: MockConfig = {
    dynamic: options.dynamic ?? false,
    ...(options.seed !== undefined ? { seed: String(options.seed) } : {}),
  };
  const route = createRoute();
  const serve = createAnswer(api, base, limit);
  const answer = (input: PrismRequest, body: BodyState): Either<Error, PrismResponse> => {
    const routed = route({ resources: api.operations, input });
    return routed._tag === "Left" ? routed : serve(routed.right, input, body);
  };
  const answerError = (res: ServerResponse, operation: string | undefined, failure: Failure) => {
    const answer = errorAnswer(api, operation, failure);
    send(res, answer.status, {}, answer.body);
  };

  /** The documented answer to a request too garbled for the HTTP parser, as raw bytes. */
  const unparseable = (): string => {
    const answer = errorAnswer(api, undefined, { kind: "invalid", violations: [{ location: ["request"], message: "is not valid HTTP/1.1" }] });
    const text = JSON.stringify(answer.body);
    return `HTTP/1.1 ${answer.status} Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`;
  };

  const handle = async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? "GET").toUpperCase();
    const { path, query } = splitTarget(req.url ?? "/");
    try {
      const raw = await readBody(req, limit);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        // Prism's mocker would renegotiate on Accept; the body's size and type are settled here.
        if (value === undefined || name === "accept" || name === "content-length") continue;
        headers[name] = Array.isArray(value) ? value.join(", ") : value;
      }
      const state: BodyState = { tooLarge: raw.tooLarge };
      let body: unknown;
      if (raw.size > 0 && !raw.tooLarge) {
        const mediaType = (headers["content-type"] ?? "").split(";")[0]!.trim();
        if (!JSON_MEDIA.test(mediaType)) {
          state.mediaType = mediaType || "(none)";
        } else {
          try {
            body = JSON.parse(raw.bytes.toString("utf8"));
          } catch (error) {
            state.jsonError = (error as Error).message;
          }
        }
      }
      const input: PrismRequest = { method: method.toLowerCase(), url: { path, query }, headers, body };
      const result = answer(input, state);
      if (result._tag === "Right") {
        const output = result.right;
        send(res, output.statusCode, output.headers ?? {}, output.body);
      } else if (result.left instanceof Refusal) {
        answerError(res, result.left.operation, result.left.failure);
      } else {
        answerError(res, undefined, routeFailure(result.left, method, path));
      }
    } catch (error) {
      if (res.headersSent) return void res.destroy();
      answerError(res, undefined, { kind: "internal", message: (error as Error).message });
    }
  };
  return { handle, unparseable };
}

/** Serves one API's mock on `host:port` until `close()`. */
export async function startMockServer(options: MockServerOptions): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 0;
  if (options.stateful) {
    // Loaded only on demand, so that the example-serving path never pulls in the reference implementation.
    const specifier = "@api-contracts/reference-server";
    const reference = (await import(specifier)) as {
      startReferenceServer(o: { service: Service; host?: string; port?: number }): Promise<RunningServer>;
    };
    return reference.startReferenceServer({ service: options.service, host, port });
  }
  const { handle, unparseable } = await createMockHandler(options);
  const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => void handle(req, res));
  server.on("clientError", (_error, socket) => {
    if (socket.writable) socket.end(unparseable());
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
