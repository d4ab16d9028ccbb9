import type { IncomingMessage, ServerResponse } from "node:http";
import { HTTP_METHODS, normalizeHeaders, parsePrefer, pathOf, queryOf, type Decision, type OperationInfo } from "@api-contracts/contract-core";
import {
  BrokenOffError,
  FaultInjector,
  createEdgeServer,
  delayAnswer,
  endSlowly,
  hangConnection,
  listen,
  readBody,
  resetConnection,
  sendInjected,
  type FaultDecision,
  type FaultsOptions,
  type DeliveryReport,
  type LingerBounds,
} from "@api-contracts/contract-core/server";
import { loadPrism, silentLogger, type MockConfig, type Either, type PrismOperation, type PrismRequest, type PrismResponse } from "./prism.js";
import { loadApi, operationKey, type ApiDescription, type Service } from "./spec.js";
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
  /** Largest request body accepted, in bytes. Default: the API's `limits.bodyBytes`. */
  bodyLimit?: number;
  /** Time allowed for a request's headers to arrive, in milliseconds (at most `requestTimeout`). Default 5 s. */
  headersTimeout?: number;
  /** Time allowed for a whole request (headers and body) to arrive, in milliseconds. Default 5 s. */
  requestTimeout?: number;
  /** How long and how much a closing connection reads of what its client still sends. Default 64 MiB, 5 s. */
  linger?: LingerBounds;
  /** Let web apps of any origin call the mock from a browser: CORS headers on every answer, preflights answered. Default `true`. */
  cors?: boolean;
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
  /**
   * Folder where Prism's answers from the examples are kept per description, so that the next start
   * answers without loading Prism; `false` keeps none. Default: `API_MOCK_CACHE_DIR`, else
   * `api-contracts-mock-<uid>` in the system's temporary folder (never one other users can write to).
   */
  cacheDir?: string | false;
}

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * 5 s to receive a request whole, as the reference server allows: ample for a client that is
 * sending, and below a client's usual 10 s timeout (the kit's `--timeout` is one), so that a client
 * that stalls is told so with a 408 before it gives up.
 */
export const DEFAULT_REQUEST_TIMEOUT = 5_000;
export const DEFAULT_HEADERS_TIMEOUT = 5_000;

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

/**
 * Answers a request the API's decision serves from the operation's examples (or generated bodies),
 * as `Prefer` chooses. With examples (not generated bodies) the answer depends only on the
 * operation and the chosen status and example: Prism makes it once, and the API's answer cache
 * keeps it, also for the next start.
 */
function createAnswer(base: MockConfig, api: ApiDescription) {
  const logger = silentLogger();
  return async (operation: PrismOperation, input: PrismRequest, prefer: string | undefined): Promise<Either<string, PrismResponse>> => {
    const chosen = preferredMock(operation, prefer, base);
    if (typeof chosen === "string") return { _tag: "Left", left: chosen };
    const key = operationKey(operation);
    const answerKey = `${key} ${chosen.code ?? ""} ${chosen.exampleKey ?? ""}`;
    const kept = chosen.dynamic ? undefined : api.answers.get(answerKey);
    if (kept) return { _tag: "Right", right: kept };
    const resource = await api.prismOperation(key);
    const result = loadPrism().mock({ resource, input: { data: input, validations: [] }, config: chosen })(logger);
    if (result._tag === "Left") throw result.left;
    if (!chosen.dynamic) api.answers.set(answerKey, result.right);
    return result;
  };
}

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

/** A token of RFC 9110 (a method's name), so that only a name is echoed back in a header. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/;

/**
 * CORS for a web app of any origin: every answer allows any origin and exposes the response headers
 * the description documents (`Retry-After`); a preflight is answered 204 with the methods
 * documented at its path (and the one asked for, so that the mock answers it in the API's words)
 * and the headers asked for. Undefined when turned off.
 */
function createCors(api: ApiDescription) {
  const exposed = [...new Set(api.contract.validators.walkedOperations().flatMap((op) => op.responses.flatMap((r) => Object.keys((r.object.headers as object | undefined) ?? {}))))];
  return {
    allow(res: ServerResponse): void {
      res.setHeader("access-control-allow-origin", "*");
      if (exposed.length > 0) res.setHeader("access-control-expose-headers", exposed.join(", "));
    },
    /** Answers a preflight and returns true; false for any other request. */
    preflight(req: IncomingMessage, res: ServerResponse): boolean {
      const asked = req.headers["access-control-request-method"];
      if (req.method !== "OPTIONS" || asked === undefined) return false;
      const path = pathOf(req.url ?? "/");
      const methods = HTTP_METHODS.map((m) => m.toUpperCase()).filter((m) => api.contract.validators.findOperation(m, path));
      if (TOKEN.test(asked) && !methods.includes(asked)) methods.push(asked);
      const headers = req.headers["access-control-request-headers"];
      res.writeHead(204, {
        "access-control-allow-methods": methods.join(", "),
        ...(headers ? { "access-control-allow-headers": headers } : {}),
        "access-control-max-age": "600",
        vary: "Access-Control-Request-Method, Access-Control-Request-Headers",
      });
      res.end();
      return true;
    },
  };
}

/** Serves one API's mock on `host:port` until `close()`. */
export async function startMockServer(options: MockServerOptions): Promise<RunningServer> {
  const requestTimeout = options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT;
  const api = await loadApi(options.service, { prism: options.dynamic === true, cacheDir: options.cacheDir });
  const { contract } = api;
  const limit = options.bodyLimit ?? contract.api.limits.bodyBytes;
  const base: MockConfig = {
    dynamic: options.dynamic ?? false,
    ...(options.seed !== undefined ? { seed: String(options.seed) } : {}),
  };
  const serve = createAnswer(base, api);
  const cors = options.cors === false ? undefined : createCors(api);
  const webhooks = new ExampleDeliveries(api, {
    secret: options.webhookSecret,
    limits: { timeoutMs: options.webhookTimeout, maxPending: options.maxPendingWebhooks },
    onReport: options.onWebhookReport,
  });
  const injector = options.faults ? new FaultInjector(options.faults.rules, { validators: contract.validators, service: options.service, seed: options.faults.seed ?? 0 }) : undefined;
  /** What a request asked for with `Prefer: latency=, fault=`, or else the rule that fires on it. */
  const faultFor = (operationId: string, prefer: string | undefined): FaultDecision | undefined => {
    const preference = parsePrefer(prefer);
    // A malformed Prefer header injects nothing: the request is refused with the API's 400 instead.
    if (typeof preference === "string") return undefined;
    if (preference.latency !== undefined || preference.fault !== undefined) {
      return { rule: "Prefer", latencyMs: preference.latency ?? 0, ...(preference.fault ? { fault: preference.fault } : {}) };
    }
    return injector?.decide(operationId);
  };
  const reply = (res: ServerResponse, answer: { status: number; body: unknown }, slowWithin?: number) => send(res, answer.status, {}, answer.body, slowWithin);

  /** Answers a request the decision took: its examples, or the 400 of a `Prefer` it cannot keep. */
  const answer = async (res: ServerResponse, operation: OperationInfo, decision: Decision, headers: Record<string, string>, target: string, slowWithin?: number) => {
    const resource = api.operations.get(operationKey(operation))!;
    const { accept: _accept, "content-length": _length, ...forPrism } = headers;
    const body = decision.read?.body;
    const input: PrismRequest = { method: operation.method.toLowerCase(), url: { path: pathOf(target), query: queryOf(target) }, headers: forPrism, body };
    const result = await serve(resource, input, headers.prefer);
    if (result._tag === "Left") return reply(res, contract.reply({ kind: "bad-request", message: result.left }, operation), slowWithin);
    const output = result.right;
    send(res, output.statusCode, output.headers ?? {}, output.body, slowWithin);
    // A job started with a webhook and answered 2xx gets the documented example calls, after its answer.
    if (output.statusCode >= 200 && output.statusCode < 300) webhooks.deliver(operation, body, output.body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (cors) {
      cors.allow(res);
      if (cors.preflight(req, res)) return;
    }
    const method = (req.method ?? "GET").toUpperCase();
    const target = req.url ?? "/";
    try {
      const bytes = await readBody(req, limit);
      if (bytes === undefined) {
        // Waiting for (and reading) a body this size is the attack: answer and close, lingering.
        const tooLarge = contract.reply({ kind: "too-large", limit });
        return send(res, tooLarge.status, { connection: "close" }, tooLarge.body);
      }
      const headers = normalizeHeaders(req.headers);
      const decision = contract.decide({ method, target, headers, body: bytes });
      const { operation } = decision;
      let slowWithin: number | undefined;
      // Faults fall on requests that hit an operation, before they are judged, as an outage would.
      const fault = operation && faultFor(operation.operationId, headers.prefer);
      if (operation && fault) {
        const { answer: injected, ...event } = fault;
        options.faults?.onFault?.({ service: options.service, operationId: operation.operationId, method, path: pathOf(target), ...event, ...(injected ? { status: injected.status } : {}) });
        if (!(await delayAnswer(res, fault.latencyMs))) return;
        if (fault.fault === "reset") return resetConnection(res);
        if (fault.fault === "hang") return hangConnection(res, requestTimeout);
        if (injected) return sendInjected(res, injected);
        if (fault.fault === "slow-body") slowWithin = requestTimeout;
      }
      const refusal = contract.refusalOf(decision);
      if (refusal) return reply(res, refusal, slowWithin);
      // A request the decision takes hit an operation.
      await answer(res, operation!, decision, headers, target, slowWithin);
    } catch (error) {
      if (error instanceof BrokenOffError || res.headersSent) return void res.destroy();
      reply(res, contract.reply({ kind: "internal" }));
    }
  };
  const server = createEdgeServer(
    { requestTimeoutMs: requestTimeout, headersTimeoutMs: options.headersTimeout ?? DEFAULT_HEADERS_TIMEOUT, linger: options.linger },
    (req, res) => void handle(req, res),
    // Requests the HTTP parser refused get the documented answer, as raw bytes.
    (problem) => contract.reply(problem),
  );
  return {
    ...(await listen(server, options.port ?? 0, options.host ?? "127.0.0.1")),
    close: async () => {
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      api.answers.flush();
      await webhooks.close();
    },
  };
}
