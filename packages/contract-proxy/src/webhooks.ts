import type { IncomingMessage, ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import { askedFindings, endToEnd, isObject, methodProblem, orderFindings, problemsOf, type ApiContract, type JobToJudge, type WebhookInfo } from "@api-contracts/contract-core";
import { createEdgeServer, listen, readUpTo } from "@api-contracts/contract-core/server";
import type { RuleError } from "./judge.js";
import type { Ledger } from "./ledger.js";
import type { Settings } from "./options.js";
import { bodyOf, forwardedHeaders, pairsOf, poolTo, stopServer } from "./wire.js";

/** How many jobs started through the proxy are remembered for judging their calls; the oldest is forgotten first. */
const REMEMBERED_JOBS = 1_000;

/** Calls of one job whose order is judged; later ones are still judged on their own. */
const REMEMBERED_CALLS = 1_000;

/** A job started through the proxy with a webhook, and its calls so far. */
interface Job {
  judged: JobToJudge;
  arrivals: Array<{ at: number; type: string }>;
  /** Findings already reported, so that each is reported once, with the call that made it known. */
  reported: Set<string>;
}

/**
 * The jobs started through the proxy with a webhook, by the id their start answered, so that the
 * calls relayed for them are judged against what their webhook asked and against one another.
 */
export class StartedJobs {
  private readonly jobs = new Map<string, Job>();

  constructor(private readonly contract: ApiContract) {}

  /** Notes a job an operation started: its request, as the API read it, asked for a webhook and the answer named its id. */
  note(operation: { method: string; path: string }, requestBody: unknown, answerBody: unknown): void {
    const started = this.contract.validators.findOperation(operation.method, operation.path);
    const events = started && this.contract.jobEvents(started.operationId);
    if (!events) return;
    const subscription = this.contract.webhookSubscription(operation, requestBody);
    const id = isObject(answerBody) ? answerBody.id : undefined;
    if (!subscription || typeof id !== "string") return;
    if (this.jobs.size >= REMEMBERED_JOBS) this.jobs.delete(this.jobs.keys().next().value!);
    this.jobs.set(id, { judged: { id, subscription, events }, arrivals: [], reported: new Set() });
  }

  /**
   * What a call for one of the jobs breaks (contract-core's judgement of a job's calls): what its
   * webhook asked, and the order of the job's calls so far, each finding once, as soon as the calls
   * that arrived show it. Out of order by no more than the grace calls sent at once may arrive in
   * is no violation. Nothing for a call of a job the proxy did not see start.
   */
  judge(payload: unknown, headers: IncomingMessage["headers"], now: number, documented = true): RuleError[] {
    const id = isObject(payload) ? payload.id : undefined;
    const type = isObject(payload) && typeof payload.type === "string" ? payload.type : undefined;
    const job = typeof id === "string" ? this.jobs.get(id) : undefined;
    if (!job || type === undefined) return [];
    const found = askedFindings(job.judged, { payload, headers, documented });
    if (job.arrivals.length >= REMEMBERED_CALLS) return found.map((finding) => finding.problem);
    job.arrivals.push({ at: now, type });
    const order = orderFindings(job.judged, job.arrivals, job.arrivals.map((arrival) => arrival.type), { complete: false });
    for (const finding of order) {
      const key = `${finding.call ?? ""} ${finding.problem.message}`;
      if (finding.severity !== "failure" || job.reported.has(key)) continue;
      job.reported.add(key);
      found.push(finding);
    }
    return found.map((finding) => finding.problem);
  }
}

/**
 * The proxy's second server: the webhook calls the upstream makes are pointed at it, judged
 * (contract-core's validateDelivery, the signature with the given secret, and for jobs started
 * through the proxy what their webhook asked and the order of their calls), and forwarded unchanged
 * to the receiver they were meant for; its answer goes back to the upstream.
 */
export async function startWebhookRelay(settings: Settings, { validators }: ApiContract, jobs: StartedJobs, ledger: Ledger): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const { judgeLimit, upstreamTimeout } = settings;
  const { host = settings.host, port = 0, secret } = settings.webhooks!;
  // Calls are forwarded to `to`, their path and query appended to its path.
  const to = settings.webhooksTo!;
  const pool = poolTo(to.origin, 64, upstreamTimeout);
  const basePath = to.pathname.replace(/\/+$/, "");
  const webhooks = validators.listWebhooks();

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer | Readable, done: (status: number) => void): void => {
    const headers = forwardedHeaders(req, to.host, Buffer.isBuffer(body) ? body : undefined);
    pool
      .request({ method: (req.method ?? "POST") as "POST", path: basePath + (req.url ?? "/"), headers, body })
      .then(async (answer) => {
        res.writeHead(answer.statusCode, endToEnd(pairsOf(answer.headers)));
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
    const report = (webhook: WebhookInfo | undefined, errors: RuleError[], notJudged?: string) => (status: number) => ledger.delivery({ method, path, headers: req.headers }, webhook, status, errors, notJudged);
    readUpTo(req, judgeLimit, {
      overflow: (read) => forward(req, res, bodyOf(read, req), report(undefined, [], `the body is larger than ${judgeLimit} bytes`)),
      end: (bytes) => {
        const verdict = validators.validateDelivery({ headers: req.headers, body: bytes }, { secret });
        const errors = [...problemsOf(verdict.errors), ...jobs.judge(verdict.payload, req.headers, Date.now(), verdict.event !== undefined)];
        const wrongMethod = methodProblem(method);
        if (wrongMethod) errors.unshift(wrongMethod);
        forward(req, res, bytes, report(webhooks.find((webhook) => webhook.event === verdict.event), errors));
      },
    });
  };

  const server = createEdgeServer({ requestTimeoutMs: settings.requestTimeout, headersTimeoutMs: settings.headersTimeout, idleTimeoutMs: upstreamTimeout + 5_000 }, handle);
  const where = await listen(server, port, host);
  return {
    ...where,
    close: async () => {
      await stopServer(server);
      await pool.destroy();
    },
  };
}
