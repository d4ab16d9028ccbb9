import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { errorAnswer, type Failure, type Violation } from "./errors.js";
import { parsePrefer } from "./prefer.js";
import {
  loadPrism,
  silentLogger,
  type MockComponent,
  type MockConfig,
  type PrismDiagnostic,
  type Either,
  type PrismOperation,
  type PrismRequest,
  type PrismResponse,
  type RouteComponent,
} from "./prism.js";
import { loadApi, operationKey, type Service } from "./spec.js";

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
const DIAGNOSTIC_ERROR = 0;
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

/** What the server learned about the raw body before Prism sees the parsed one. */
interface BodyState {
  size: number;
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

/** Prism reports parameter names in lower case; the client wants them as documented. */
function parameterNames(operation: PrismOperation): Map<string, string> {
  const names = new Map<string, string>();
  for (const list of [operation.request?.path, operation.request?.query, operation.request?.headers]) {
    for (const parameter of list ?? []) names.set(parameter.name.toLowerCase(), parameter.name);
  }
  return names;
}

function toViolation(diagnostic: PrismDiagnostic, names: Map<string, string>): Violation {
  const location = diagnostic.path && diagnostic.path.length > 0 ? diagnostic.path.map(String) : ["body"];
  if (location[0] !== "body" && location[1] !== undefined) location[1] = names.get(location[1]) ?? location[1];
  const keyword = typeof diagnostic.code === "string" && diagnostic.code ? diagnostic.code : undefined;
  // Prism reports a missing or unknown member at its parent; the client wants the member itself.
  const member = /required property '([^']+)'|found '([^']+)'|: '([^']+)'$/.exec(diagnostic.message);
  const name = member?.[1] ?? member?.[2] ?? member?.[3];
  if (name && (keyword === "required" || keyword === "additionalProperties" || keyword === "unevaluatedProperties")) {
    location.push(name);
  }
  return { location, message: diagnostic.message, ...(keyword ? { keyword } : {}) };
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

function createMock(states: WeakMap<PrismRequest, BodyState>, base: MockConfig, limit: number): MockComponent {
  const { mock: prismMock } = loadPrism();
  // With examples (not generated bodies) the answer depends only on the operation and the chosen example.
  const answered = new Map<string, ReturnType<ReturnType<MockComponent>>>();
  return ({ resource, input, config }) =>
    (logger) => {
      const key = operationKey(resource.method, resource.path);
      const refuse = (failure: Failure) => ({ _tag: "Left" as const, left: new Refusal(key, failure) });
      const headers = input.data.headers ?? {};
      const auth = authProblem(resource, headers.authorization);
      if (auth) return refuse({ kind: "auth", problem: auth });
      const body = states.get(input.data);
      const contents = resource.request?.body?.contents ?? [];
      if (body && contents.length > 0) {
        if (body.tooLarge) return refuse({ kind: "too-large", limit });
        if (body.mediaType !== undefined) {
          return refuse({ kind: "media-type", received: body.mediaType, supported: contents.map((c) => c.mediaType) });
        }
        if (body.jsonError !== undefined) return refuse({ kind: "json", message: body.jsonError });
      }
      const violations = input.validations.filter((d) => d.severity === DIAGNOSTIC_ERROR);
      if (violations.length > 0) return refuse({ kind: "invalid", violations: violations.map((d) => toViolation(d, parameterNames(resource))) });
      const chosen = preferredMock(resource, headers.prefer, { ...base, ...config });
      if (typeof chosen === "string") return refuse({ kind: "prefer", message: chosen });
      if (chosen.dynamic) return prismMock({ resource, input, config: chosen })(logger);
      const answerKey = `${key} ${chosen.code ?? ""} ${chosen.exampleKey ?? ""}`;
      let answer = answered.get(answerKey);
      if (!answer) {
        answer = prismMock({ resource, input, config: chosen })(logger);
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
  const { validateInput } = loadPrism();
  const states = new WeakMap<PrismRequest, BodyState>();
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const base: MockConfig = {
    dynamic: options.dynamic ?? false,
    ...(options.seed !== undefined ? { seed: String(options.seed) } : {}),
  };
  const route = createRoute();
  const mock = createMock(states, base, limit);
  const logger = silentLogger();
  // Prism's own request pipeline (createInstance) adds about as much time again as its components.
  // Validation is a pure function of the operation and the request's parts it reads, so repeated
  // requests reuse its verdict (bounded, and only for bodies small enough to key on).
  const verdicts = new Map<string, PrismDiagnostic[]>();
  const validate = (resource: PrismOperation, input: PrismRequest, rawQuery: string, rawBody: string) => {
    const headers = input.headers ?? {};
    const key =
      rawBody.length > 8192
        ? undefined
        : [
            resource.id,
            input.url.path,
            rawQuery,
            headers["content-type"] ?? "",
            ...(resource.request?.headers ?? []).map((h) => headers[h.name.toLowerCase()] ?? "\u0000"),
            rawBody,
          ].join("\u0001");
    const known = key === undefined ? undefined : verdicts.get(key);
    if (known) return known;
    const validated = validateInput({ resource, element: input });
    const validations = validated._tag === "Left" ? validated.left : [];
    if (key !== undefined) {
      if (verdicts.size >= 1024) verdicts.clear();
      verdicts.set(key, validations);
    }
    return validations;
  };
  const answer = (input: PrismRequest, rawQuery: string, rawBody: string): Either<Error, PrismResponse> => {
    const routed = route({ resources: api.operations, input });
    if (routed._tag === "Left") return routed;
    const resource = routed.right;
    const validations = validate(resource, input, rawQuery, rawBody);
    return mock({ resource, input: { data: input, validations }, config: base })(logger);
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
        // Prism would renegotiate on Accept and re-check media types from Content-Length; both are settled here.
        if (value === undefined || name === "accept" || name === "content-length") continue;
        headers[name] = Array.isArray(value) ? value.join(", ") : value;
      }
      const state: BodyState = { size: raw.size, tooLarge: raw.tooLarge };
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
      states.set(input, state);
      const rawQuery = (req.url ?? "").split("?")[1] ?? "";
      const result = answer(input, rawQuery, state.tooLarge || state.mediaType !== undefined ? "\u0002" : raw.bytes.toString("latin1"));
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
