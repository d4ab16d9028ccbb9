import type { IncomingMessage, ServerResponse } from "node:http";
import { authorizationProblem, HTTP_METHODS, queryOf, type Problem } from "@api-contracts/contract-core";
import {
  FaultInjector,
  createEdgeServer,
  delayAnswer,
  endSlowly,
  hangConnection,
  listen,
  resetConnection,
  sendInjected,
  type FaultDecision,
  type FaultsOptions,
  type DeliveryReport,
  type LingerBounds,
} from "@api-contracts/contract-core/server";
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
import { loadApi, type ApiDescription, type Service } from "./spec.js";
import { ExampleDeliveries } from "./webhooks.js";

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
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  bodyLimit?: number;
  /** Time allowed for a request's headers to arrive, in milliseconds. Default 10 s. */
  headersTimeout?: number;
  /** Time allowed for a whole request (headers and body) to arrive, in milliseconds. Default 30 s. */
  requestTimeout?: number;
  /** How long and how much a closing connection reads of what its client still sends. Default 64 MiB, 5 s. */
  linger?: LingerBounds;
  /** Latency and faults to inject, by rule; requests can also ask for them with `Prefer: latency=`, `fault=`. */
  faults?: FaultsOptions;
  /**
   * Signs the example webhook calls the mock makes for a request that carries a `webhook` (a crawl),
   * as the description's `x-webhook-signature` says; they go unsigned without it.
   */
  webhookSecret?: string;
  /** A webhook call not answered within this many milliseconds is aborted. Default 10 s. */
  webhookTimeout?: number;
  /** Webhook calls waiting or in flight at once; a crawl's calls beyond it are dropped whole. Default 1000. */
  maxPendingWebhooks?: number;
  /** Told of every webhook call's end: delivered, refused, failed, timed out, dropped or cancelled. */
  onWebhookReport?: (report: DeliveryReport) => void;
}

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;
export const DEFAULT_HEADERS_TIMEOUT = 10_000;
export const DEFAULT_REQUEST_TIMEOUT = 30_000;
const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json$/i;

/** A request refused before any example is chosen; carried through Prism as its error value. */
class Refusal extends Error {
  constructor(
    /** The operation the request hit, as method and path template. */
    readonly operation: { method: string; path: string },
    readonly problem: Problem,
  ) {
    super(problem.kind);
  }
}

/** What the server learned about the raw body before it was parsed. */
interface BodyState {
  mediaType?: string;
  malformedJson?: boolean;
}

function authProblem(operation: PrismOperation, authorization: string | undefined) {
  const alternatives = operation.security ?? [];
  if (alternatives.length === 0 || alternatives.some((schemes) => schemes.length === 0)) return undefined;
  const bearer = alternatives.some((schemes) =>
    schemes.some((s) => s.type === "http" && s.scheme?.toLowerCase() === "bearer"),
  );
  // The mock knows no keys: any well-formed one is accepted.
  return bearer ? authorizationProblem(authorization, () => true) : undefined;
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
    const holder = operation.responses.find(
      (r) =>
        (preference.code === undefined || r.code === String(preference.code)) &&
        r.contents?.some((c) => c.examples?.some((x) => x.key === name)),
    );
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
function createAnswer(api: ApiDescription, base: MockConfig) {
  const { mock: prismMock } = loadPrism();
  const logger = silentLogger();
  // With examples (not generated bodies) the answer depends only on the operation and the chosen example.
  const answered = new Map<string, Either<Error, PrismResponse>>();
  return (resource: PrismOperation, input: PrismRequest, body: BodyState): Either<Error, PrismResponse> => {
    const operation = { method: resource.method, path: resource.path };
    const refuse = (problem: Problem) => ({ _tag: "Left" as const, left: new Refusal(operation, problem) });
    const headers = input.headers ?? {};
    const auth = authProblem(resource, headers.authorization);
    if (auth) return refuse({ kind: "unauthorized", reason: auth });
    const contents = resource.request?.body?.contents ?? [];
    if (contents.length > 0) {
      if (body.mediaType !== undefined) {
        return refuse({ kind: "unsupported-media-type", received: body.mediaType, supported: contents.map((c) => c.mediaType) });
      }
      if (body.malformedJson) return refuse({ kind: "malformed-json" });
    }
    const errors = api.errors.validators.request(resource.method, resource.path).validate({
      path: input.url.path,
      query: input.url.query ?? {},
      headers,
      body: input.body,
    });
    if (errors.length > 0) return refuse({ kind: "invalid", errors });
    const chosen = preferredMock(resource, headers.prefer, base);
    if (typeof chosen === "string") return refuse({ kind: "bad-request", message: chosen });
    const mocked = () => prismMock({ resource, input: { data: input, validations: [] }, config: chosen })(logger);
    if (chosen.dynamic) return mocked();
    const answerKey = `${resource.method.toUpperCase()} ${resource.path} ${chosen.code ?? ""} ${chosen.exampleKey ?? ""}`;
    if (!answered.has(answerKey)) answered.set(answerKey, mocked());
    return answered.get(answerKey)!;
  };
}

function readBody(req: IncomingMessage, limit: number): Promise<{ bytes: Buffer; size: number; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      // Past the limit the answer goes at once; the closing connection reads the rest, bounded.
      req.off("data", onData);
      resolve({ bytes: Buffer.alloc(0), size, tooLarge: true });
    };
    req.on("data", onData);
    req.on("end", () => resolve({ bytes: Buffer.concat(chunks), size, tooLarge: size > limit }));
    req.on("error", reject);
  });
}

function routeProblem(api: ApiDescription, error: Error, method: string, path: string): Problem {
  const name = `${error.name} ${error.message}`;
  if (/NO_METHOD_MATCHED/.test(name)) {
    const allowed = HTTP_METHODS.map((m) => m.toUpperCase()).filter((m) => api.errors.validators.findOperation(m, path));
    return { kind: "not-found", method, path, allowed };
  }
  if (/NO_PATH_MATCHED|NO_RESOURCE_PROVIDED|NO_SERVER|must start with a slash/.test(name)) return { kind: "not-found", method, path };
  return { kind: "internal" };
}

/** The operationId Prism read from the description (its own hash where there is none). */
const operationIdOf = (operation: PrismOperation): string => operation.iid ?? operation.id;

/** Sends an answer at once, or (an injected `slow-body`) trickled until `slowWithin` ms have passed. */
function send(res: ServerResponse, status: number, headers: Record<string, unknown>, body: unknown, slowWithin?: number): void {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && value !== null && name.toLowerCase() !== "content-length") out[name] = String(value);
  }
  if (body === undefined) return void res.writeHead(status, out).end();
  if (!Object.keys(out).some((h) => h.toLowerCase() === "content-type")) out["content-type"] = "application/json";
  const text = typeof body === "string" && !/json/i.test(String(out["content-type"] ?? out["Content-type"])) ? body : JSON.stringify(body);
  out["content-length"] = String(Buffer.byteLength(text));
  res.writeHead(status, out);
  if (slowWithin === undefined) res.end(text);
  else endSlowly(res, Buffer.from(text), slowWithin);
}

/** Builds the request handler of one API's mock. */
async function createMockHandler(options: MockServerOptions, requestTimeout: number) {
  const api = await loadApi(options.service);
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const base: MockConfig = {
    dynamic: options.dynamic ?? false,
    ...(options.seed !== undefined ? { seed: String(options.seed) } : {}),
  };
  const route = createRoute();
  const serve = createAnswer(api, base);
  const webhooks = new ExampleDeliveries(api, {
    secret: options.webhookSecret,
    limits: { timeoutMs: options.webhookTimeout, maxPending: options.maxPendingWebhooks },
    onReport: options.onWebhookReport,
  });
  const injector = options.faults ? new FaultInjector(options.faults.rules, { validators: api.errors.validators, service: options.service, seed: options.faults.seed ?? 0 }) : undefined;
  /** What a request asked for with `Prefer: latency=, fault=`, or else the rule that fires on it. */
  const faultFor = (operationId: string, prefer: string | undefined): FaultDecision | undefined => {
    const preference = prefer === undefined ? {} : parsePrefer(prefer);
    // A malformed Prefer header injects nothing: the request is refused with the API's 400 instead.
    if (typeof preference === "string") return undefined;
    if (preference.latency !== undefined || preference.fault !== undefined) {
      return { rule: "Prefer", latencyMs: preference.latency ?? 0, ...(preference.fault ? { fault: preference.fault } : {}) };
    }
    return injector?.decide(operationId);
  };
  const answerError = (res: ServerResponse, problem: Problem, operation?: Refusal["operation"], slowWithin?: number) => {
    const answer = api.errors.reply(problem, operation);
    send(res, answer.status, {}, answer.body, slowWithin);
  };

  const handle = async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? "GET").toUpperCase();
    const target = req.url ?? "/";
    const path = target.split("?", 1)[0]!;
    const declared = Number(req.headers["content-length"]);
    const tooLarge = () => {
      // Waiting for (and reading) a body this size is the attack: answer and close, lingering.
      const answer = api.errors.reply({ kind: "too-large", limit });
      send(res, answer.status, { connection: "close" }, answer.body);
    };
    if (declared > limit) return tooLarge();
    try {
      const raw = await readBody(req, limit);
      if (raw.tooLarge) return tooLarge();
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        // Prism's mocker would renegotiate on Accept; the body's size and type are settled here.
        if (value === undefined || name === "accept" || name === "content-length") continue;
        headers[name] = Array.isArray(value) ? value.join(", ") : value;
      }
      const state: BodyState = {};
      let body: unknown;
      if (raw.size > 0) {
        const mediaType = (headers["content-type"] ?? "").split(";")[0]!.trim();
        if (!JSON_MEDIA.test(mediaType)) {
          state.mediaType = mediaType || "(none)";
        } else {
          try {
            body = JSON.parse(raw.bytes.toString("utf8"));
          } catch {
            state.malformedJson = true;
          }
        }
      }
      const input: PrismRequest = { method: method.toLowerCase(), url: { path, query: queryOf(target) }, headers, body };
      const routed = route({ resources: api.operations, input });
      let slowWithin: number | undefined;
      const operationId = routed._tag === "Right" ? operationIdOf(routed.right) : undefined;
      // Faults fall on requests routed to an operation, before they are checked, as an outage would.
      const fault = operationId === undefined ? undefined : faultFor(operationId, headers.prefer);
      if (operationId !== undefined && fault) {
        const { answer: injected, ...event } = fault;
        options.faults?.onFault?.({ service: options.service, operationId, method, path, ...event, ...(injected ? { status: injected.status } : {}) });
        if (!(await delayAnswer(res, fault.latencyMs))) return;
        if (fault.fault === "reset") return resetConnection(res);
        if (fault.fault === "hang") return hangConnection(res, requestTimeout);
        if (injected) return sendInjected(res, injected);
        if (fault.fault === "slow-body") slowWithin = requestTimeout;
      }
      const result = routed._tag === "Left" ? routed : serve(routed.right, input, state);
      if (result._tag === "Right") {
        const output = result.right;
        send(res, output.statusCode, output.headers ?? {}, output.body, slowWithin);
        // A crawl answered 2xx with a webhook gets the documented example calls, after its answer.
        if (routed._tag === "Right" && output.statusCode >= 200 && output.statusCode < 300) webhooks.deliver(routed.right.method, routed.right.path, body, output.body);
      } else if (result.left instanceof Refusal) {
        answerError(res, result.left.problem, result.left.operation, slowWithin);
      } else {
        answerError(res, routeProblem(api, result.left, method, path));
      }
    } catch {
      if (res.headersSent) return void res.destroy();
      answerError(res, { kind: "internal" });
    }
  };
  return { handle, errors: api.errors, close: () => webhooks.close() };
}

/** Serves one API's mock on `host:port` until `close()`. */
export async function startMockServer(options: MockServerOptions): Promise<RunningServer> {
  const requestTimeout = options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT;
  const { handle, errors, close: closeWebhooks } = await createMockHandler(options, requestTimeout);
  const server = createEdgeServer(
    { requestTimeoutMs: requestTimeout, headersTimeoutMs: options.headersTimeout ?? DEFAULT_HEADERS_TIMEOUT, linger: options.linger },
    (req, res) => void handle(req, res),
    // Requests the HTTP parser refused get the documented answer, as raw bytes.
    (problem) => errors.reply(problem),
  );
  return {
    ...(await listen(server, options.port ?? 0, options.host ?? "127.0.0.1")),
    close: async () => {
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      await closeWebhooks();
    },
  };
}
