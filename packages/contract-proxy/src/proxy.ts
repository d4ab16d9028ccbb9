import { STATUS_CODES, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { Readable } from "node:stream";
// By its file, not its name: Bun answers `import "undici"` with a stand-in of its own whose Pool cannot dispatch.
import { Pool, errors, type Dispatcher } from "undici/index.js";
import {
  ContractErrors,
  MAX_LATENCY_MS,
  getApi,
  type ApiName,
  type Coverage,
  type ErrorReply,
  type KnownDifference,
  type OperationInfo,
  type Problem,
  type SentRequest,
} from "@api-contracts/contract-core";
import {
  FaultInjector,
  createEdgeServer,
  delayAnswer,
  endSlowly,
  hangConnection,
  listen,
  resetConnection,
  type FaultDecision,
  type FaultsOptions,
  type LingerBounds,
} from "@api-contracts/contract-core/server";
import { Judge, NotJudged, decodeBody, queryOf, type ResponsePlan, type RuleError } from "./judge.js";
import { StartedJobs, parsedAnswer, startWebhookRelay } from "./webhooks.js";
import { NOT_FORWARDED_IN_REQUESTS, bodyOf, endToEnd, joinChunks, readUpTo } from "./wire.js";
import { credentialRedactor, secretsOf, type Violation } from "./report.js";
import { Ledger, type LedgerExchange, type ProxyCounts } from "./ledger.js";

export { RECENT_VIOLATIONS, type ProxyCounts } from "./ledger.js";

export interface ContractProxyOptions {
  /** The API the traffic speaks: `entitlements` or `webdata` (any registered API). */
  service: ApiName;
  /** Base URL of the implementation to forward to: `http://127.0.0.1:4011`. A path in it prefixes every request path. */
  upstream: string;
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port to listen on; `0` picks a free one. Default `0`. */
  port?: number;
  /** Refuse requests and replace answers that break the contract, instead of only reporting them. Default `false`. */
  strict?: boolean;
  /** File that each violation is appended to as one JSON line. */
  report?: string;
  /** File the coverage of the traffic is written to, as one JSON document (contract-core's coverage format), when the proxy closes. */
  coverage?: string;
  /** Largest body, in bytes, read and judged in either direction; larger ones pass through unjudged. Default 1 MiB. */
  judgeLimit?: number;
  /** Longest silence allowed from the upstream (before its answer and between its chunks), in milliseconds. Default 30 s. */
  upstreamTimeout?: number;
  /** Time allowed for a client's request headers to arrive, in milliseconds. Default 10 s. */
  headersTimeout?: number;
  /** Time allowed for a client's whole request to arrive, in milliseconds. Default 30 s. */
  requestTimeout?: number;
  /** How long and how much a closing connection reads of what its client still sends. Default 64 MiB, 5 s. */
  linger?: LingerBounds;
  /**
   * Differences you have accepted (contract-core's known-differences format): a violation every
   * error of which an entry explains is reported with `known`, is not counted as a violation and,
   * in strict mode, passes through. `operation` is the operationId (or `METHOD /path` where no
   * operation serves the request), `check` the direction (`request` or `response`), and `reason`
   * a substring of one error as {@link knownReason} writes it.
   */
  knownDifferences?: readonly KnownDifference[];
  /** Called with each report line as it is written (already redacted and bounded). */
  onViolation?: (violation: Violation) => void;
  /**
   * Latency and faults to inject in front of the upstream (contract-core's faults format): each
   * fired rule is an `injected` report line; the answers it makes up are not the upstream's and are
   * never judged as its violations.
   */
  faults?: FaultsOptions;
  /**
   * Relay and judge the API's webhook calls: a second server, on `host` (default the proxy's) and
   * `port` (default a free one), takes the calls the upstream makes (point the webhook at
   * {@link ContractProxy.webhooks}), judges each and forwards it unchanged to `to`, the call's path
   * and query appended to its path. With `secret`, signatures are judged too.
   */
  webhooks?: { to: string; host?: string; port?: number; secret?: string };
}

export interface ContractProxy {
  url: string;
  port: number;
  /** With `webhooks`: the URL to point the API's webhooks at. */
  webhooks?: string;
  /** The most recent report lines, oldest first (at most {@link RECENT_VIOLATIONS}). */
  violations: readonly Violation[];
  counts: Readonly<ProxyCounts>;
  /** Known differences no violation has matched so far; written to the report as `stale` lines on close. */
  stale(): KnownDifference[];
  /** What the traffic so far exercised: per operation, the documented statuses answered and the request members sent. */
  coverage(): Coverage;
  close(): Promise<void>;
}

export const DEFAULT_JUDGE_LIMIT = 1024 * 1024;
export const DEFAULT_UPSTREAM_TIMEOUT = 30_000;
export const DEFAULT_HEADERS_TIMEOUT = 10_000;
export const DEFAULT_REQUEST_TIMEOUT = 30_000;
export const VIOLATIONS_HEADER = "x-contract-violations";
const NOT_FORWARDED_IN_RESPONSES = new Set([VIOLATIONS_HEADER]);
/** Connections kept to the upstream; more requests wait for a free one. */
const UPSTREAM_CONNECTIONS = 256;



/** What one exchange has learned so far; written out just before its answer's head goes to the client. */
interface Exchange extends LedgerExchange {
  method: string;
  target: string;
  path: string;
  operation: OperationInfo | undefined;
  /** The request's headers: the credentials in them are looked for only when something is written out. */
  headers: IncomingHttpHeaders;
  requestErrors: RuleError[];
  unjudged: Array<{ direction: Violation["direction"]; error: RuleError }>;
  /**
   * A fired `slow-body` rule, reported only once the upstream's answer shows whether it applies:
   * only an answer read whole is trickled to the client.
   */
  slowBody?: { operationId: string; decision: FaultDecision };
  /** The query parameters, headers and JSON body the request carried, for the coverage. */
  sent: SentRequest;
}

/** The status line and headers of the upstream's answer. */
interface UpstreamAnswer {
  status: number;
  statusMessage: string | undefined;
  /** As received: lower-case names, repeated ones as arrays. */
  headers: Record<string, string | string[] | undefined>;
  /** The headers the judge reads, one value each. */
  judged: IncomingHttpHeaders;
}

function notJudged(where: "request" | "response", reason: string) {
  return { direction: where, error: { in: "body" as const, pointer: "", keyword: "judgeLimit", message: `not judged: ${reason}` } };
}

function upstreamProblem(error: Error & { code?: string }, timeout: number): string {
  const code = error.code ?? "";
  if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT" || code === "UND_ERR_CONNECT_TIMEOUT") return `the upstream did not answer within ${timeout} ms`;
  if (error instanceof errors.HTTPParserError) return "the upstream's answer is not valid HTTP";
  if (code === "UND_ERR_SOCKET" || code === "ECONNRESET" || code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH") return "the upstream closed the connection before its answer was complete";
  return `the upstream could not be reached (${code || "connection failed"})`;
}

/** An answer's headers as the parser hands them over (lower-case names, repeated ones as arrays), as raw pairs. */
function pairsOf(headers: Record<string, string | string[] | undefined>): string[] {
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (Array.isArray(value)) for (const one of value) pairs.push(name, one);
    else if (value !== undefined) pairs.push(name, value);
  }
  return pairs;
}

/** The one value of a header the judge reads; repeated values joined as RFC 9110 §5.3 allows. */
function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}


/**
 * The origin-form of a request target (RFC 9112 §3.2): an absolute-form target names an authority of
 * its own, which a gateway to one upstream does not follow. Undefined for a target that is not a path
 * at all (the asterisk-form of `OPTIONS *`): no operation serves it and it cannot be forwarded.
 */
function originForm(target: string): string | undefined {
  if (target.startsWith("/")) return target;
  const authority = /^https?:\/\/[^/?#]*/i.exec(target);
  if (!authority) return undefined;
  const rest = target.slice(authority[0].length);
  return rest.startsWith("/") ? rest : `/${rest}`;
}



/** Starts a proxy that forwards every request to `upstream` and judges both directions against the API's description. */
export async function startContractProxy(options: ContractProxyOptions): Promise<ContractProxy> {
  const api = getApi(options.service);
  const upstream = new URL(options.upstream);
  if (upstream.protocol !== "http:" && upstream.protocol !== "https:") throw new TypeError(`upstream must be an http or https URL, got ${upstream.protocol}`);
  const basePath = upstream.pathname.replace(/\/+$/, "");
  const strict = options.strict ?? false;
  const limit = options.judgeLimit ?? DEFAULT_JUDGE_LIMIT;
  const upstreamTimeout = options.upstreamTimeout ?? DEFAULT_UPSTREAM_TIMEOUT;
  // undici's dispatcher rather than node:http's client: measured side by side, the proxy spends about a
  // quarter less CPU per exchange with it, and CPU per exchange is what bounds a proxy's throughput.
  const pool = new Pool(upstream.origin, {
    connections: UPSTREAM_CONNECTIONS,
    connectTimeout: upstreamTimeout,
    headersTimeout: upstreamTimeout,
    bodyTimeout: upstreamTimeout,
  });
  const requestTimeout = options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT;
  const headersTimeout = Math.min(options.headersTimeout ?? DEFAULT_HEADERS_TIMEOUT, requestTimeout);
  const errors = new ContractErrors(api);
  const judge = new Judge(errors.validators);
  const redact = credentialRedactor(api.keyPrefix);
  let webhooksTo: URL | undefined;
  if (options.webhooks) {
    webhooksTo = URL.canParse(options.webhooks.to) ? new URL(options.webhooks.to) : undefined;
    if (webhooksTo?.protocol !== "http:" && webhooksTo?.protocol !== "https:") throw new TypeError(`webhooks.to must be an http or https URL, got ${options.webhooks.to}`);
  }
  const injector = options.faults ? new FaultInjector(options.faults.rules, { validators: errors.validators, service: api.name, seed: options.faults.seed ?? 0 }) : undefined;
  const ledger = new Ledger({ service: api.name, document: errors.validators.document, redact, report: options.report, coverage: options.coverage, knownDifferences: options.knownDifferences, onViolation: options.onViolation });
  const { counts } = ledger;
  const jobs = options.webhooks ? new StartedJobs(errors.validators) : undefined;


  /** The proxy's own answer, in the API's error shape. */
  /**
   * An answer given while the request's body is still arriving (a refusal, or the upstream's early
   * answer) closes the connection: reading that body would be the cost the early answer avoids, and
   * the closing connection lingers (contract-core's lingerOnClose) so that the client reads the answer.
   */
  const closeWhileBodyArrives = (res: ServerResponse): Record<string, string> => (res.req.complete ? {} : { connection: "close" });

  const answer = (ex: Exchange, res: ServerResponse, problem: Problem, judgedStatus?: number, responseErrors: RuleError[] = []): void => {
    const operation = ex.operation && { method: ex.operation.method, path: ex.operation.path };
    const reply: ErrorReply = errors.reply(problem, operation);
    settleSlowBody(ex, false);
    const count = ledger.finish(ex, judgedStatus ?? reply.status, responseErrors);
    const text = JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
      [VIOLATIONS_HEADER]: String(count),
      ...closeWhileBodyArrives(res),
    });
    res.end(text);
  };

  const badGateway = (ex: Exchange, res: ServerResponse, message: string, judgedStatus?: number, responseErrors?: RuleError[]) =>
    answer(ex, res, { kind: "bad-gateway", message: redact(message, secretsOf(ex.headers)) }, judgedStatus, responseErrors);

  const refuseAnswer = (ex: Exchange, res: ServerResponse, status: number, found: RuleError[]) => {
    const named = found.slice(0, 5).map((e) => `${e.in}${e.pointer} ${e.message}`);
    const more = found.length > 5 ? `; and ${found.length - 5} more` : "";
    badGateway(ex, res, `the upstream's ${status} answer to ${ex.operation?.operationId ?? ex.method} breaks the contract: ${named.join("; ")}${more}`, status, found);
  };

  const failed = (ex: Exchange, res: ServerResponse, error: Error) => {
    // Once an answer has begun, cutting it short is the only honest ending; a finished one is left alone.
    if (res.headersSent) {
      if (!res.writableEnded) res.destroy();
      return;
    }
    badGateway(ex, res, upstreamProblem(error, upstreamTimeout));
  };

  const writeHead = (res: ServerResponse, answer: UpstreamAnswer, count: number, length?: number): boolean => {
    const headers = endToEnd(pairsOf(answer.headers), NOT_FORWARDED_IN_RESPONSES);
    if (length !== undefined && answer.headers["content-length"] === undefined) headers.push("content-length", String(length));
    headers.push(VIOLATIONS_HEADER, String(count));
    for (const [name, value] of Object.entries(closeWhileBodyArrives(res))) headers.push(name, value);
    try {
      res.writeHead(answer.status, answer.statusMessage || STATUS_CODES[answer.status] || "", headers);
      return true;
    } catch {
      // A status or header node refuses to send (for instance a status outside 100-999).
      return false;
    }
  };

  /** Begins passing the upstream's answer on as it arrives, after what was already read of it; false when it was refused instead. */
  const stream = (ex: Exchange, res: ServerResponse, answer: UpstreamAnswer, headErrors: RuleError[], already: Buffer[]): boolean => {
    if (strict && headErrors.length > 0 && !ledger.explained(ex, answer.status, "response", headErrors)) {
      refuseAnswer(ex, res, answer.status, headErrors);
      return false;
    }
    settleSlowBody(ex, false);
    const count = ledger.finish(ex, answer.status, headErrors);
    if (!writeHead(res, answer, count)) {
      badGateway(ex, res, "the upstream's answer cannot be passed on as HTTP/1.1");
      return false;
    }
    for (const chunk of already) res.write(chunk);
    return true;
  };

  /** The answer read whole: judged, then passed on with its length, or replaced in strict mode. */
  const judgeWhole = (ex: Exchange, res: ServerResponse, answer: UpstreamAnswer, plan: ResponsePlan, bytes: Buffer) => {
    let found: RuleError[] = plan.errors;
    try {
      found = [...plan.errors, ...judge.responseBody(plan, bytes, answer.judged["content-encoding"], limit)];
    } catch (error) {
      ex.unjudged.push(notJudged("response", error instanceof NotJudged ? error.message : "the body could not be judged"));
    }
    if (strict && found.length > 0 && !ledger.explained(ex, answer.status, "response", found)) return refuseAnswer(ex, res, answer.status, found);
    if (jobs && ex.operation && answer.status >= 200 && answer.status < 300) noteJob(ex, answer, bytes);
    const count = ledger.finish(ex, answer.status, found);
    if (!writeHead(res, answer, count, bytes.length)) return badGateway(ex, res, "the upstream's answer cannot be passed on as HTTP/1.1");
    if (!ex.slowBody) return void res.end(bytes);
    settleSlowBody(ex, true);
    endSlowly(res, bytes, requestTimeout);
  };

  /** A job the upstream started with a webhook, remembered so that its relayed calls are judged against what it asked. */
  const noteJob = (ex: Exchange, answer: UpstreamAnswer, bytes: Buffer) => {
    try {
      jobs!.note(ex.operation!, ex.sent.body, parsedAnswer(decodeBody(bytes, answer.judged["content-encoding"], limit)));
    } catch {
      // An answer that does not decode starts no job the proxy can follow.
    }
  };

  /** What becomes of the upstream's answer, as undici hands it over: read whole and judged, or streamed through. */
  const relay = (ex: Exchange, res: ServerResponse): Dispatcher.DispatchHandler => {
    let controller: Dispatcher.DispatchController | undefined;
    let answer: UpstreamAnswer | undefined;
    let plan: ResponsePlan = { errors: [] };
    // Chunks of an answer being read whole; undefined once it streams (or was refused: then `refused`).
    let held: Buffer[] | undefined;
    let size = 0;
    let refused = false;
    // A client that goes away takes its upstream request with it.
    res.once("close", () => {
      if (!res.writableFinished) controller?.abort(new Error("the client went away"));
    });
    const startStreaming = (already: Buffer[]) => {
      held = undefined;
      if (!stream(ex, res, answer!, plan.errors, already)) {
        refused = true;
        controller?.abort(new Error("the answer was replaced"));
      }
    };
    return {
      onRequestStart(started) {
        controller = started;
        if (res.destroyed) started.abort(new Error("the client went away"));
      },
      onResponseStart(_controller, status, headers, statusMessage) {
        // Informational answers (100, 103) belong to the upstream's connection, not to the exchange.
        if (status < 200) return;
        const judged = { "content-type": single(headers["content-type"]), "content-encoding": single(headers["content-encoding"]), "content-length": single(headers["content-length"]) };
        answer = { status, statusMessage, headers, judged };
        if (ex.operation) {
          try {
            plan = judge.response(ex.operation, ex.method, status, answer.judged);
          } catch {
            ex.unjudged.push(notJudged("response", "the description could not be applied to this answer"));
          }
        }
        if (!plan.judgeBody) return startStreaming([]);
        if (Number(answer.judged["content-length"]) > limit) {
          ex.unjudged.push(notJudged("response", `the body is larger than ${limit} bytes`));
          return startStreaming([]);
        }
        held = [];
      },
      onResponseData(flow, chunk) {
        if (refused) return;
        if (held) {
          held.push(chunk);
          size += chunk.length;
          if (size <= limit) return;
          ex.unjudged.push(notJudged("response", `the body is larger than ${limit} bytes`));
          return startStreaming(held);
        }
        if (!res.write(chunk)) {
          // The client reads slower than the upstream writes: stop reading the upstream until it catches up.
          flow.pause();
          res.once("drain", () => flow.resume());
        }
      },
      onResponseEnd() {
        if (refused || !answer) return;
        if (held) judgeWhole(ex, res, answer, plan, joinChunks(held, size));
        else res.end();
      },
      onResponseError(_controller, error) {
        if (refused) return;
        failed(ex, res, error);
      },
    };
  };

  const forward = (ex: Exchange, req: IncomingMessage, res: ServerResponse, body: Buffer[], rest: IncomingMessage | undefined) => {
    const headers = endToEnd(req.rawHeaders, NOT_FORWARDED_IN_REQUESTS);
    headers.push("host", upstream.host);
    const whole = rest ? undefined : joinChunks(body);
    // A chunked body read whole is sent with its length: the framing is the connection's, not the message's.
    if (whole && req.headers["transfer-encoding"] !== undefined) headers.push("content-length", String(whole.length));
    pool.dispatch(
      { method: req.method!, path: basePath + ex.target, headers, body: rest ? Readable.from(bodyOf(body, rest), { objectMode: false }) : whole!.length > 0 ? whole : null },
      relay(ex, res),
    );
  };

  const tooLargeRequest = (ex: Exchange, req: IncomingMessage, res: ServerResponse, read: Buffer[]) => {
    if (strict) {
      ex.unjudged.push(notJudged("request", `the body is larger than ${limit} bytes`));
      return answer(ex, res, { kind: "too-large", limit });
    }
    ex.unjudged.push(notJudged("request", `the body is larger than ${limit} bytes`));
    forward(ex, req, res, read, req);
  };

  /** Marks an exchange a rule fired on, in the report and through `onFault`. */
  const recordInjected = (ex: Exchange, operationId: string, decision: FaultDecision): void => {
    const { answer: made, ...what } = decision;
    const injected = { ...what, ...(made ? { status: made.status } : {}) };
    const line = ledger.injected(ex, operationId, injected);
    options.faults?.onFault?.({ service: api.name, operationId, method: line.method, path: line.path, ...injected });
  };

  /**
   * Reports a fired `slow-body` rule once its exchange shows whether the trickle applies: an answer
   * that streams through, or one the proxy gives itself, passes at its own pace, so only the wait the
   * rule asked for (if any) was injected.
   */
  const settleSlowBody = (ex: Exchange, trickled: boolean): void => {
    const fired = ex.slowBody;
    if (!fired) return;
    ex.slowBody = undefined;
    if (trickled) return recordInjected(ex, fired.operationId, fired.decision);
    const { fault: _notApplied, ...waited } = fired.decision;
    if (waited.latencyMs > 0) recordInjected(ex, fired.operationId, waited);
  };

  /**
   * Forwards a judged request, or first lets the rule that fires on it act: wait, then reset, hang,
   * answer in the upstream's place (its documented answer, not judged), or forward and trickle.
   */
  const forwardOrInject = async (ex: Exchange, req: IncomingMessage, res: ServerResponse, body: Buffer[]) => {
    const operationId = ex.operation?.operationId;
    const decision = operationId === undefined ? undefined : injector?.decide(operationId);
    if (!decision) return forward(ex, req, res, body, undefined);
    if (decision.fault === "slow-body") ex.slowBody = { operationId: operationId!, decision };
    else recordInjected(ex, operationId!, decision);
    if (!(await delayAnswer(res, decision.latencyMs))) {
      // The client left during the wait: no answer reached it, and what it sent is reported with status 0.
      settleSlowBody(ex, false);
      ledger.finish(ex, 0, []);
      return;
    }
    if (decision.fault === "reset" || decision.fault === "hang") {
      // No answer reaches the client: what it sent is reported with status 0.
      ledger.finish(ex, 0, []);
      return decision.fault === "reset" ? resetConnection(res) : hangConnection(res, requestTimeout);
    }
    const made = decision.answer;
    if (made) {
      const count = ledger.finish(ex, made.status, [], true);
      res.writeHead(made.status, { ...made.headers, "content-length": String(made.body.length), [VIOLATIONS_HEADER]: String(count) });
      return void res.end(made.body);
    }
    forward(ex, req, res, body, undefined);
  };

  const judged = (ex: Exchange, req: IncomingMessage, res: ServerResponse, bytes: Buffer) => {
    try {
      const verdict = judge.request(ex.operation, ex.method, ex.target, req.headers, bytes, limit);
      ex.requestErrors = verdict.errors;
      ex.sent.body = verdict.body;
      // A request whose every fault is a known difference is passed on, as in report-only mode.
      if (strict && verdict.problem && !ledger.explained(ex, 0, "request", verdict.errors)) return answer(ex, res, verdict.problem);
    } catch (error) {
      const reason = error instanceof NotJudged ? error.message : "the body could not be judged";
      if (strict) return answer(ex, res, { kind: "bad-request", message: `The request could not be checked: ${reason}` });
      ex.unjudged.push(notJudged("request", reason));
    }
    // A failure past the wait (the pool closed under it) ends this exchange, never the proxy.
    forwardOrInject(ex, req, res, bytes.length > 0 ? [bytes] : []).catch(() => res.destroy());
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    counts.exchanges++;
    const method = (req.method ?? "GET").toUpperCase();
    const origin = originForm(req.url ?? "/");
    const target = origin ?? req.url ?? "/";
    const path = target.split("?")[0]!;
    const ex: Exchange = {
      method,
      target,
      path,
      operation: judge.findOperation(method, path),
      headers: req.headers,
      requestErrors: [],
      unjudged: [],
      sent: { query: Object.keys(queryOf(target)), headers: Object.keys(req.headers) },
    };
    if (origin === undefined) {
      const verdict = judge.request(undefined, method, target, req.headers, Buffer.alloc(0), limit);
      ex.requestErrors = verdict.errors;
      return answer(ex, res, verdict.problem!);
    }
    if (Number(req.headers["content-length"]) > limit) return tooLargeRequest(ex, req, res, []);
    // A client that breaks off its request has gone; the server closes its socket.
    readUpTo(req, limit, { overflow: (chunks) => tooLargeRequest(ex, req, res, chunks), end: (bytes) => judged(ex, req, res, bytes), error: () => {} });
  };

  const server = createEdgeServer(
    {
      requestTimeoutMs: requestTimeout,
      headersTimeoutMs: headersTimeout,
      // A client that stops reading holds its socket no longer than the upstream may keep silent, after
      // the longest wait a faults rule may inject: no byte flows during that wait either.
      idleTimeoutMs: upstreamTimeout + (injector ? MAX_LATENCY_MS : 0) + 5_000,
      ...(options.linger ? { linger: options.linger } : {}),
    },
    handle,
    (problem) => errors.reply(problem),
  );
  const where = await listen(server, options.port ?? 0, options.host ?? "127.0.0.1");
  const webhookRelay =
    options.webhooks &&
    (await startWebhookRelay({
      validators: errors.validators,
      jobs: jobs!,
      to: webhooksTo!,
      host: options.webhooks.host ?? options.host ?? "127.0.0.1",
      port: options.webhooks.port ?? 0,
      secret: options.webhooks.secret,
      judgeLimit: limit,
      timeoutMs: upstreamTimeout,
      headersTimeoutMs: headersTimeout,
      requestTimeoutMs: requestTimeout,
      onCall: (call) => {
        counts.deliveries++;
        const ex: Exchange = { method: call.method, target: call.path, path: call.path, operation: call.webhook, headers: call.headers, requestErrors: [], unjudged: [], sent: {} };
        if (call.errors.length > 0) ledger.record(ex, call.status, "delivery", call.errors);
        if (call.notJudged) ledger.record(ex, call.status, "delivery", [notJudged("request", call.notJudged).error], false);
      },
    }).catch(async (error: unknown) => {
      await new Promise((resolve) => server.close(resolve));
      await pool.destroy();
      throw error;
    }));
  return {
    ...where,
    ...(webhookRelay ? { webhooks: webhookRelay.url } : {}),
    violations: ledger.recent,
    counts,
    stale: () => ledger.stale(),
    coverage: () => ledger.coverage.report(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((closing) => {
          let error: Error | undefined = closing;
          try {
            ledger.close();
          } catch (writing) {
            error ??= writing as Error;
          }
          Promise.all([pool.destroy(), webhookRelay?.close()]).then(() => (error ? reject(error) : resolve()), reject);
        });
        server.closeAllConnections();
      }),
  };
}
