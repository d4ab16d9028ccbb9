import { Agent as HttpAgent, STATUS_CODES, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { ContractErrors, answerParserErrors, getApi, listen, type ApiName, type ErrorReply, type OperationInfo, type Problem } from "@api-contracts/contract-core";
import { Judge, NotJudged, type ResponsePlan, type RuleError } from "./judge.js";
import { ReportFile, boundedViolation, redactor, secretsOf, type Violation } from "./report.js";

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
  /** Largest body, in bytes, read and judged in either direction; larger ones pass through unjudged. Default 1 MiB. */
  judgeLimit?: number;
  /** Longest silence allowed from the upstream (before its answer and between its chunks), in milliseconds. Default 30 s. */
  upstreamTimeout?: number;
  /** Time allowed for a client's request headers to arrive, in milliseconds. Default 10 s. */
  headersTimeout?: number;
  /** Time allowed for a client's whole request to arrive, in milliseconds. Default 30 s. */
  requestTimeout?: number;
  /** Called with each report line as it is written (already redacted and bounded). */
  onViolation?: (violation: Violation) => void;
}

export interface ProxyCounts {
  exchanges: number;
  violations: number;
  /** Bodies larger than the judging limit, passed through unjudged. */
  notJudged: number;
}

export interface ContractProxy {
  url: string;
  port: number;
  /** The most recent report lines, oldest first (at most {@link RECENT_VIOLATIONS}). */
  violations: readonly Violation[];
  counts: Readonly<ProxyCounts>;
  close(): Promise<void>;
}

export const DEFAULT_JUDGE_LIMIT = 1024 * 1024;
export const DEFAULT_UPSTREAM_TIMEOUT = 30_000;
export const DEFAULT_HEADERS_TIMEOUT = 10_000;
export const DEFAULT_REQUEST_TIMEOUT = 30_000;
/** How many report lines `violations` keeps; the report file keeps them all. */
export const RECENT_VIOLATIONS = 1_000;
export const VIOLATIONS_HEADER = "x-contract-violations";

/** RFC 9110 §7.6.1: meaningful for one connection only, so never forwarded (nor are headers `Connection` names). */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "proxy-authorization", "proxy-authenticate"]);
// The proxy answers `Expect: 100-continue` itself and sends the upstream the whole body; `Host` names the upstream.
const NOT_FORWARDED_IN_REQUESTS = new Set(["host", "expect"]);
const NOT_FORWARDED_IN_RESPONSES = new Set([VIOLATIONS_HEADER]);

function endToEnd(raw: string[], drop: ReadonlySet<string>): string[] {
  const listed = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === "connection") for (const token of raw[i + 1]!.split(",")) listed.add(token.trim().toLowerCase());
  }
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HOP_BY_HOP.has(name) && !drop.has(name) && !listed.has(name)) kept.push(raw[i]!, raw[i + 1]!);
  }
  return kept;
}

/** What one exchange has learned so far; written out just before its answer's head goes to the client. */
interface Exchange {
  method: string;
  target: string;
  path: string;
  operation: OperationInfo | undefined;
  secrets: string[];
  requestErrors: RuleError[];
  unjudged: Array<{ direction: Violation["direction"]; error: RuleError }>;
}

function notJudged(where: "request" | "response", reason: string) {
  return { direction: where, error: { in: "body" as const, pointer: "", keyword: "judgeLimit", message: `not judged: ${reason}` } };
}

function upstreamProblem(error: Error & { code?: string }, timeout: number): string {
  if (error instanceof UpstreamTimeout) return `the upstream did not answer within ${timeout} ms`;
  if (error.code?.startsWith("HPE_")) return "the upstream's answer is not valid HTTP";
  if (error.code === "ECONNRESET" || error.message === "aborted") return "the upstream closed the connection before its answer was complete";
  return `the upstream could not be reached (${error.code ?? "connection failed"})`;
}

class UpstreamTimeout extends Error {}

/**
 * Reads a message's body until it ends or grows past `limit`; past it, the message is left
 * paused with nothing lost, so that what was read and the rest can be passed on as they come.
 */
function readUpTo(
  message: IncomingMessage,
  limit: number,
  on: { end(bytes: Buffer): void; overflow(read: Buffer[]): void; error(error: Error): void },
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    chunks.push(chunk);
    if (size <= limit) return;
    message.pause();
    message.off("data", onData).off("end", onEnd).off("error", on.error);
    on.overflow(chunks);
  };
  const onEnd = () => {
    message.off("error", on.error);
    on.end(Buffer.concat(chunks));
  };
  message.on("data", onData).once("end", onEnd).once("error", on.error);
}

/** Starts a proxy that forwards every request to `upstream` and judges both directions against the API's description. */
export async function startContractProxy(options: ContractProxyOptions): Promise<ContractProxy> {
  const api = getApi(options.service);
  const upstream = new URL(options.upstream);
  if (upstream.protocol !== "http:" && upstream.protocol !== "https:") throw new TypeError(`upstream must be an http or https URL, got ${upstream.protocol}`);
  const basePath = upstream.pathname.replace(/\/+$/, "");
  const send = upstream.protocol === "https:" ? httpsRequest : httpRequest;
  const strict = options.strict ?? false;
  const limit = options.judgeLimit ?? DEFAULT_JUDGE_LIMIT;
  const upstreamTimeout = options.upstreamTimeout ?? DEFAULT_UPSTREAM_TIMEOUT;
  // The idle timeout is set once per pooled socket rather than once per request: requests then only listen for it.
  const agentOptions = { keepAlive: true, maxSockets: 256, timeout: upstreamTimeout };
  const agent = upstream.protocol === "https:" ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  const requestTimeout = options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT;
  const headersTimeout = Math.min(options.headersTimeout ?? DEFAULT_HEADERS_TIMEOUT, requestTimeout);
  const errors = new ContractErrors(api);
  const judge = new Judge(errors.validators);
  const redact = redactor(api.keyPrefix);
  const report = options.report === undefined ? undefined : new ReportFile(options.report);
  const counts: ProxyCounts = { exchanges: 0, violations: 0, notJudged: 0 };
  const recent: Violation[] = [];

  const record = (ex: Exchange, status: number, direction: Violation["direction"], found: RuleError[], judged = true): void => {
    const line: Violation = {
      time: new Date().toISOString(),
      service: api.name,
      operationId: ex.operation?.operationId ?? null,
      method: ex.method,
      path: ex.path,
      status,
      direction,
      errors: found,
      ...(judged ? {} : { judged: false as const }),
    };
    const bounded = boundedViolation(line, (text) => redact(text, ex.secrets));
    if (judged) counts.violations++;
    else counts.notJudged++;
    recent.push(bounded);
    if (recent.length > RECENT_VIOLATIONS) recent.shift();
    report?.write(bounded);
    options.onViolation?.(bounded);
  };

  /** Writes the exchange's report lines; returns its count of violations, for the header. */
  const finish = (ex: Exchange, status: number, responseErrors: RuleError[]): number => {
    if (ex.requestErrors.length > 0) record(ex, status, "request", ex.requestErrors);
    if (responseErrors.length > 0) record(ex, status, "response", responseErrors);
    for (const { direction, error } of ex.unjudged) record(ex, status, direction, [error], false);
    return (ex.requestErrors.length > 0 ? 1 : 0) + (responseErrors.length > 0 ? 1 : 0);
  };

  /** The proxy's own answer, in the API's error shape. */
  const answer = (ex: Exchange, res: ServerResponse, problem: Problem, judgedStatus?: number, responseErrors: RuleError[] = []): void => {
    const operation = ex.operation && { method: ex.operation.method, path: ex.operation.path };
    const reply: ErrorReply = errors.reply(problem, operation);
    const count = finish(ex, judgedStatus ?? reply.status, responseErrors);
    const text = JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
      [VIOLATIONS_HEADER]: String(count),
      // A refused request's body may still be arriving; reading it would be the cost the refusal avoids.
      ...(problem.kind === "too-large" ? { connection: "close" } : {}),
    });
    res.end(text);
  };

  const badGateway = (ex: Exchange, res: ServerResponse, message: string, judgedStatus?: number, responseErrors?: RuleError[]) =>
    answer(ex, res, { kind: "bad-gateway", message: redact(message, ex.secrets) }, judgedStatus, responseErrors);

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

  const writeHead = (res: ServerResponse, upRes: IncomingMessage, count: number, length?: number): boolean => {
    const headers = endToEnd(upRes.rawHeaders, NOT_FORWARDED_IN_RESPONSES);
    if (length !== undefined && upRes.headers["content-length"] === undefined) headers.push("content-length", String(length));
    headers.push(VIOLATIONS_HEADER, String(count));
    try {
      res.writeHead(upRes.statusCode!, upRes.statusMessage || STATUS_CODES[upRes.statusCode!] || "", headers);
      return true;
    } catch {
      // A status or header node refuses to send (for instance a status outside 100-999).
      return false;
    }
  };

  /** Passes the upstream's answer on as it arrives, after what was already read of it. */
  const stream = (ex: Exchange, res: ServerResponse, upRes: IncomingMessage, headErrors: RuleError[], already: Buffer[]) => {
    const status = upRes.statusCode!;
    if (strict && headErrors.length > 0) {
      upRes.destroy();
      return refuseAnswer(ex, res, status, headErrors);
    }
    const count = finish(ex, status, headErrors);
    if (!writeHead(res, upRes, count)) {
      upRes.destroy();
      return badGateway(ex, res, "the upstream's answer cannot be passed on as HTTP/1.1");
    }
    upRes.on("error", () => res.destroy());
    for (const chunk of already) res.write(chunk);
    upRes.pipe(res);
  };

  const respond = (ex: Exchange, res: ServerResponse, upRes: IncomingMessage) => {
    const status = upRes.statusCode!;
    let plan: ResponsePlan = { errors: [] };
    if (ex.operation) {
      try {
        plan = judge.response(ex.operation, ex.method, status, upRes.headers);
      } catch {
        ex.unjudged.push(notJudged("response", "the description could not be applied to this answer"));
      }
    }
    if (!plan.judgeBody) return stream(ex, res, upRes, plan.errors, []);
    if (Number(upRes.headers["content-length"]) > limit) {
      ex.unjudged.push(notJudged("response", `the body is larger than ${limit} bytes`));
      return stream(ex, res, upRes, plan.errors, []);
    }
    readUpTo(upRes, limit, {
      overflow: (chunks) => {
        ex.unjudged.push(notJudged("response", `the body is larger than ${limit} bytes`));
        stream(ex, res, upRes, plan.errors, chunks);
      },
      end: (bytes) => {
        let found: RuleError[] = plan.errors;
        try {
          found = [...plan.errors, ...judge.responseBody(plan, bytes, upRes.headers["content-encoding"], limit)];
        } catch (error) {
          ex.unjudged.push(notJudged("response", error instanceof NotJudged ? error.message : "the body could not be judged"));
        }
        if (strict && found.length > 0) return refuseAnswer(ex, res, status, found);
        const count = finish(ex, status, found);
        if (!writeHead(res, upRes, count, bytes.length)) return badGateway(ex, res, "the upstream's answer cannot be passed on as HTTP/1.1");
        res.end(bytes);
      },
      error: (error) => failed(ex, res, error),
    });
  };

  const forward = (ex: Exchange, req: IncomingMessage, res: ServerResponse, body: Buffer[], rest: IncomingMessage | undefined) => {
    const headers = endToEnd(req.rawHeaders, NOT_FORWARDED_IN_REQUESTS);
    headers.push("host", upstream.host);
    // A chunked body read whole is sent with its length: the framing is the connection's, not the message's.
    if (!rest && req.headers["transfer-encoding"] !== undefined) headers.push("content-length", String(body.reduce((n, c) => n + c.length, 0)));
    const upReq = send({ hostname: upstream.hostname, port: upstream.port, method: req.method, path: basePath + ex.target, headers, agent, setHost: false });
    upReq.once("timeout", () => upReq.destroy(new UpstreamTimeout()));
    upReq.on("error", (error) => failed(ex, res, error));
    upReq.once("response", (upRes) => respond(ex, res, upRes));
    // A client that goes away takes its upstream request with it.
    res.once("close", () => {
      if (!res.writableFinished) upReq.destroy();
    });
    if (rest) {
      for (const chunk of body) upReq.write(chunk);
      // A client that breaks off the body it is streaming has broken off the exchange.
      rest.on("error", () => upReq.destroy());
      rest.pipe(upReq);
      return;
    }
    // A body read whole goes out with its head in one write: split writes meet Nagle's algorithm and delayed ACKs.
    upReq.end(Buffer.concat(body));
  };

  const tooLargeRequest = (ex: Exchange, req: IncomingMessage, res: ServerResponse, read: Buffer[]) => {
    if (strict) {
      ex.unjudged.push(notJudged("request", `the body is larger than ${limit} bytes`));
      return answer(ex, res, { kind: "too-large", limit });
    }
    ex.unjudged.push(notJudged("request", `the body is larger than ${limit} bytes`));
    forward(ex, req, res, read, req);
  };

  const judged = (ex: Exchange, req: IncomingMessage, res: ServerResponse, bytes: Buffer) => {
    try {
      const verdict = judge.request(ex.operation, ex.method, ex.target, req.headers, bytes, limit);
      ex.requestErrors = verdict.errors;
      if (strict && verdict.problem) return answer(ex, res, verdict.problem);
    } catch (error) {
      const reason = error instanceof NotJudged ? error.message : "the body could not be judged";
      if (strict) return answer(ex, res, { kind: "bad-request", message: `The request could not be checked: ${reason}` });
      ex.unjudged.push(notJudged("request", reason));
    }
    forward(ex, req, res, bytes.length > 0 ? [bytes] : [], undefined);
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    counts.exchanges++;
    const method = (req.method ?? "GET").toUpperCase();
    const target = req.url ?? "/";
    const path = target.split("?")[0]!;
    const ex: Exchange = { method, target, path, operation: judge.findOperation(method, path), secrets: secretsOf(req.headers), requestErrors: [], unjudged: [] };
    if (Number(req.headers["content-length"]) > limit) return tooLargeRequest(ex, req, res, []);
    // A client that breaks off its request has gone; the server closes its socket.
    readUpTo(req, limit, { overflow: (chunks) => tooLargeRequest(ex, req, res, chunks), end: (bytes) => judged(ex, req, res, bytes), error: () => {} });
  };

  const server = createServer(
    {
      keepAliveTimeout: 5_000,
      requestTimeout,
      headersTimeout,
      // Node looks for expired requests only this often (30 s by default).
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(headersTimeout / 2))),
    },
    handle,
  );
  // A client that stops reading holds its socket no longer than the upstream may keep silent.
  server.setTimeout(upstreamTimeout + 5_000);
  answerParserErrors(server, (problem) => errors.reply(problem));
  const where = await listen(server, options.port ?? 0, options.host ?? "127.0.0.1");
  return {
    ...where,
    violations: recent,
    counts,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => {
          agent.destroy();
          report?.close();
          if (error) reject(error);
          else resolve();
        });
        server.closeAllConnections();
      }),
  };
}
