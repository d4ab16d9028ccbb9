import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
// By its file, not its name: Bun answers `import "undici"` with a stand-in of its own whose Pool cannot dispatch.
import { Pool } from "undici/index.js";
import {
  DELIVERY_ORDER_GRACE_MS,
  createEdgeServer,
  escapePointer,
  isObject,
  listen,
  problemsOf,
  subscribesTo,
  subscriptionMismatches,
  takesWebhook,
  webhookSubscription,
  type JsonObject,
  type OpenApiValidators,
  type WebhookInfo,
  type WebhookSubscription,
} from "@api-contracts/contract-core";
import type { RuleError } from "./judge.js";
import { NOT_FORWARDED_IN_REQUESTS, bodyOf, endToEnd, readUpTo } from "./wire.js";

/** How many jobs started through the proxy are remembered for judging their calls; the oldest is forgotten first. */
export const REMEMBERED_JOBS = 1_000;

/** A job (a crawl) started through the proxy with a webhook, and what its calls so far told. */
interface Job {
  subscription: WebhookSubscription;
  /** When its first call of any kind arrived, and which event it was. */
  firstCall?: { at: number; type: string };
  /** When its first event (`crawl.started`) and its last (`crawl.completed`) arrived. */
  started?: number;
  completed?: number;
}

/**
 * The jobs started through the proxy with a webhook, by the id their start answered, so that the
 * calls relayed for them are judged against what their webhook asked and against one another.
 */
export class StartedJobs {
  private readonly jobs = new Map<string, Job>();

  constructor(private readonly validators: OpenApiValidators) {}

  /** Notes a job an operation started: its request asked for a webhook and the answer named its id. */
  note(operation: { method: string; path: string }, requestBody: unknown, answerBody: unknown): void {
    if (!takesWebhook(this.validators.document, operation)) return;
    const subscription = webhookSubscription(this.validators.document, operation, requestBody);
    const id = isObject(answerBody) ? answerBody.id : undefined;
    if (!subscription || typeof id !== "string") return;
    if (this.jobs.size >= REMEMBERED_JOBS) this.jobs.delete(this.jobs.keys().next().value!);
    this.jobs.set(id, { subscription });
  }

  /**
   * What a call for one of the jobs breaks: what its webhook asked (events, metadata, headers),
   * and the order of the job's calls as they arrive (`<kind>.started` first and once,
   * `<kind>.completed` last and once), with the grace calls sent at once may arrive within.
   * Nothing for a call of a job the proxy did not see start.
   */
  judge(payload: unknown, headers: IncomingMessage["headers"], now: number): RuleError[] {
    const id = isObject(payload) ? payload.id : undefined;
    const type = isObject(payload) && typeof payload.type === "string" ? payload.type : undefined;
    const job = typeof id === "string" ? this.jobs.get(id) : undefined;
    if (!job || type === undefined) return [];
    const found: RuleError[] = subscriptionMismatches(job.subscription, { payload, headers }).map((mismatch) =>
      mismatch.member === "headers"
        ? { in: "header", pointer: `/${escapePointer(mismatch.name!.toLowerCase())}`, keyword: "webhook-headers", message: mismatch.message }
        : { in: "body", pointer: mismatch.member === "events" ? "/type" : "/metadata", keyword: `webhook-${mismatch.member}`, message: mismatch.message },
    );
    const order = (message: string) => found.push({ in: "body", pointer: "/type", keyword: "webhook-order", message });
    const kind = type.slice(0, type.indexOf(".") + 1);
    const [first, last] = [`${kind}started`, `${kind}completed`];
    job.firstCall ??= { at: now, type };
    if (job.completed !== undefined && type !== last && now - job.completed > DELIVERY_ORDER_GRACE_MS) order(`arrived ${now - job.completed} ms after ${last}`);
    if (type === first) {
      if (job.started !== undefined) order(`${first} was delivered again`);
      // After the last event, that one finding says it all.
      else if (job.completed === undefined && job.firstCall.type !== first && now - job.firstCall.at > DELIVERY_ORDER_GRACE_MS) order(`arrived ${now - job.firstCall.at} ms after the job's first call (${job.firstCall.type})`);
      job.started ??= now;
    }
    if (type === last) {
      if (job.completed !== undefined) order(`${last} was delivered again`);
      if (job.started === undefined && subscribesTo(job.subscription, first)) order(`no ${first} arrived before it`);
      job.completed ??= now;
    }
    return found;
  }
}

export interface WebhookRelayOptions {
  validators: OpenApiValidators;
  jobs: StartedJobs;
  /** Base URL calls are forwarded to: the call's path and query are appended to its path. */
  to: URL;
  host: string;
  port: number;
  /** The secret calls are signed with; their signature is judged when given. */
  secret?: string;
  judgeLimit: number;
  /** Longest silence from the receiver forwarded to, in milliseconds. */
  timeoutMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Told of each call relayed: what it broke (none when it kept the contract), and the status its sender got. */
  onCall(call: { webhook: WebhookInfo | undefined; method: string; path: string; status: number; errors: RuleError[]; notJudged?: string; headers: IncomingMessage["headers"] }): void;
}

/**
 * The proxy's second server: the webhook calls the upstream makes are pointed at it, judged
 * (contract-core's validateDelivery, the signature with the given secret, and for jobs started
 * through the proxy what their webhook asked and the order of their calls), and forwarded unchanged
 * to the receiver they were meant for; its answer goes back to the upstream.
 */
export async function startWebhookRelay(options: WebhookRelayOptions): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const pool = new Pool(options.to.origin, { connections: 64, connectTimeout: options.timeoutMs, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs });
  const basePath = options.to.pathname.replace(/\/+$/, "");
  const webhooks = options.validators.listWebhooks();

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer | AsyncGenerator<Buffer>, done: (status: number) => void): void => {
    const headers = endToEnd(req.rawHeaders, NOT_FORWARDED_IN_REQUESTS);
    headers.push("host", options.to.host);
    if (Buffer.isBuffer(body) && req.headers["transfer-encoding"] !== undefined) headers.push("content-length", String(body.length));
    pool
      .request({ method: (req.method ?? "POST") as "POST", path: basePath + (req.url ?? "/"), headers, body: Buffer.isBuffer(body) ? body : Readable.from(body, { objectMode: false }) })
      .then(async (answer) => {
        const pairs: string[] = [];
        for (const [name, value] of Object.entries(answer.headers)) for (const one of [value].flat()) if (one !== undefined) pairs.push(name, String(one));
        res.writeHead(answer.statusCode, endToEnd(pairs, new Set()));
        for await (const chunk of answer.body) res.write(chunk);
        res.end();
        done(answer.statusCode);
      })
      .catch(() => {
        if (res.headersSent) res.destroy();
        else res.writeHead(502, { "content-type": "text/plain" }).end("the receiver could not be reached");
        done(502);
      });
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? "/").split("?")[0]!;
    const method = (req.method ?? "POST").toUpperCase();
    const report = (webhook: WebhookInfo | undefined, errors: RuleError[], notJudged?: string) => (status: number) => options.onCall({ webhook, method, path, status, errors, headers: req.headers, ...(notJudged ? { notJudged } : {}) });
    const tooLarge = (read: Buffer[]) => forward(req, res, bodyOf(read, req), report(undefined, [], `the body is larger than ${options.judgeLimit} bytes`));
    if (Number(req.headers["content-length"]) > options.judgeLimit) return tooLarge([]);
    readUpTo(req, options.judgeLimit, {
      overflow: tooLarge,
      error: () => undefined,
      end: (bytes) => {
        const verdict = options.validators.validateDelivery({ headers: req.headers, body: bytes }, { secret: options.secret });
        const errors = [...problemsOf(verdict.errors), ...options.jobs.judge(verdict.payload, req.headers, Date.now())];
        if (method !== "POST") errors.unshift({ in: "path", pointer: "", keyword: "method", message: `a webhook call is a POST, not ${method}` });
        forward(req, res, bytes, report(webhooks.find((webhook) => webhook.event === verdict.event), errors));
      },
    });
  };

  const server = createEdgeServer({ requestTimeoutMs: options.requestTimeoutMs, headersTimeoutMs: options.headersTimeoutMs, idleTimeoutMs: options.timeoutMs + 5_000 }, handle);
  const where = await listen(server, options.port, options.host);
  return {
    ...where,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close(() => pool.destroy().then(() => resolve(), reject));
        server.closeAllConnections();
      }),
  };
}

/** The answer body of a started job, parsed, for {@link StartedJobs.note}; undefined when it is not JSON. */
export function parsedAnswer(bytes: Buffer): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(bytes.toString("utf8"));
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
