import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { isObject, type JobEvents, type JsonObject } from "@api-contracts/contract-core";
import type { Contract } from "../judge.js";
import { curlOf, expectAnswer, fail, pass, skip, snippet, warn, type Check, type CheckContext, type Outcome } from "../checks/types.js";
import { judgeJob, type Concern, type Finding, type JobRecord } from "./judge.js";
import { DEFAULT_RECEIVER_LIMITS, startDeliveryReceiver, type DeliveryReceiver } from "./receiver.js";

/** How long calls are still taken after a job's last event, to see one that comes late (milliseconds). */
export const LATE_CALLS_MS = 1_000;
/** Default time for a job's calls to reach its last event (`--webhook-deadline`), in milliseconds. */
export const DEFAULT_WEBHOOK_DEADLINE_MS = 60_000;

/** Where the kit's receiver listens, and what the target is told to call. */
export interface WebhookReceiverOptions {
  /** The address it listens on; the target must be able to reach it. */
  host: string;
  port: number;
  /** Base URL the target calls, when it reaches the receiver by another name (a tunnel, a container's host name). */
  publicUrl?: string;
}

export interface WebhookStageOptions {
  /** Undefined when no receiver the target can reach is known; `unavailable` says why. */
  receiver?: WebhookReceiverOptions;
  unavailable?: string;
  /** The secret the target signs its calls with; signatures are not judged without it. */
  secret?: string;
  /** Longest wait for a job's last event, from its start. */
  deadlineMs: number;
  /** Largest call body kept. */
  maxBodyBytes: number;
  /** The run's deadline: waiting stops when it passes. */
  runDeadline?: AbortSignal;
}

/** A job of the stage with its findings and how to start it again. */
interface JudgedJob {
  record: JobRecord;
  findings: Finding[];
  curl: string;
}

/**
 * The jobs judged; or `error`, why they could not be started (a failure); or `notStarted`, a start
 * the target refused as the contract documents, for a client to try again later (nothing to judge).
 */
type StageRun = { jobs: JudgedJob[] } | { error: string } | { notStarted: string };

/** Documented answers to a start that a client backs off from and retries later: the target is not at fault. */
const BACK_OFF: Record<number, string> = { 429: "rate limited", 402: "out of credits" };

const shortName = (event: string) => event.slice(event.indexOf(".") + 1);

/**
 * The kit's side of webhooks: a local receiver, and the jobs started with a webhook pointing at it
 * (once per operation, shared by every check of the stage). Two jobs: one with every event, extra
 * headers and metadata; one that asks for its first and last events only.
 */
export class WebhookStage {
  private receiver: Promise<DeliveryReceiver> | undefined;
  private readonly runs = new Map<string, Promise<StageRun>>();
  private readonly token = randomUUID().slice(0, 8);

  constructor(readonly options: WebhookStageOptions) {}

  /** The stage's jobs of one operation, started on first use. */
  run(ctx: CheckContext, operationId: string, kind: JobEvents, body: JsonObject): Promise<StageRun> {
    let run = this.runs.get(operationId);
    if (!run) this.runs.set(operationId, (run = this.start(ctx, operationId, kind, body)));
    return run;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.runs.values());
    await (await this.receiver?.catch(() => undefined))?.close();
  }

  private async start(ctx: CheckContext, operationId: string, kind: JobEvents, base: JsonObject): Promise<StageRun> {
    const { receiver: where, deadlineMs, runDeadline } = this.options;
    if (!where) return { error: this.options.unavailable ?? "no receiver" };
    let receiver: DeliveryReceiver;
    try {
      receiver = await (this.receiver ??= startDeliveryReceiver(where.host, where.port, { ...DEFAULT_RECEIVER_LIMITS, maxBodyBytes: this.options.maxBodyBytes }));
    } catch (error) {
      return { error: `the receiver could not listen on ${where.host}:${where.port}: ${(error as Error).message}` };
    }
    const origin = (where.publicUrl ?? receiver.origin).replace(/\/+$/, "");
    const metadata = { contract_test: this.token };
    const ref = ctx.contract.operation(operationId);
    const curlOfStart = (body: JsonObject) => curlOf(ctx, ref, { path: {}, query: {}, headers: {}, body });
    const jobs = [
      { name: "the job with every event", slug: "every-event", webhook: { headers: { "X-Contract-Test": this.token }, metadata: { ...metadata, job: "every-event" } } },
      { name: `the job asking for ${shortName(kind.first)} and ${shortName(kind.last)}`, slug: "first-and-last", webhook: { metadata: { ...metadata, job: "first-and-last" }, events: [shortName(kind.first), shortName(kind.last)] } },
    ];
    const started: Array<{ name: string; path: string; body: JsonObject; id: string; began: number }> = [];
    for (const job of jobs) {
      const path = `/${this.token}/${operationId}/${job.slug}`;
      receiver.expect(path);
      const body = { ...base, webhook: { url: `${origin}${path}`, ...job.webhook } };
      const result = await ctx.caller.call(operationId, { body });
      const { status, bodyText } = result.exchange;
      // Judged like any answer: a refusal off its documentation fails below.
      if (BACK_OFF[status] && expectAnswer(result, status).ok) {
        return { notStarted: `not run: starting ${job.name} was answered ${status} (${BACK_OFF[status]}): ${snippet(bodyText)}; the contract documents it and a client backs off, so run again later` };
      }
      const answered = expectAnswer(result, "2xx");
      if (!answered.ok) return { error: `starting ${job.name}: ${answered.reason}\n${curlOfStart(body)}` };
      const id = isObject(result.body) ? result.body.id : undefined;
      if (typeof id !== "string") return { error: `starting ${job.name}: the answer has no id` };
      started.push({ name: job.name, path, body, id, began: performance.now() });
    }
    await Promise.all(started.map((job) => receiver.waitFor(job.path, (calls) => calls.some((call) => call.type === kind.last), deadlineMs, runDeadline)));
    await sleep(LATE_CALLS_MS, undefined, { signal: runDeadline }).catch(() => undefined);

    // Nothing at all from any job: most often the target cannot, or will not, call this address;
    // when calls came to other paths, it can, and calls another URL than the one it was given.
    const { strays } = receiver;
    const silentReceiver = !started.every((job) => receiver.calls(job.path).length === 0)
      ? undefined
      : strays > 0
        ? `the receiver (${origin}) got no call from any job at the paths it gave, but ${strays} call${strays === 1 ? "" : "s"} to other paths: the target reaches it and calls another URL than the webhook's`
        : `the receiver (${origin}) got no call from any job: a target that does not call private addresses (a guard against server-side request forgery, such as Firecrawl's ALLOW_LOCAL_WEBHOOKS) or cannot reach this one needs an address it can reach (--webhook-receiver host:port, and --webhook-url when it calls another name)`;
    const judged = started.map((job): JudgedJob => {
      const subscription = ctx.contract.core.webhookSubscription(ref, job.body)!;
      const record: JobRecord = { name: job.name, subscription, id: job.id, calls: receiver.calls(job.path), refused: receiver.refused(job.path), waitedMs: Math.min(deadlineMs, Math.round(performance.now() - job.began)) };
      const findings = judgeJob(record, kind, { validators: ctx.contract.validators, secret: this.options.secret, ...(silentReceiver ? { silentReceiver } : {}) });
      return { record, findings, curl: curlOfStart(job.body) };
    });
    return { jobs: judged };
  }
}

/** At most this many calls are listed in a failure's evidence, and this many characters of a call's body. */
const EVIDENCE_CALLS = 20;
const EVIDENCE_BODY = 400;

/** How to see a job's failure again: the start request as curl, what arrived, and the first call at fault. */
function evidenceOf(job: JudgedJob, findings: Finding[]): string[] {
  const { calls } = job.record;
  const listed = calls.slice(0, EVIDENCE_CALLS).map((call, index) => `#${index + 1} +${call.at - calls[0]!.at} ms ${call.type ?? "(no type)"}`);
  const lines = [`${job.record.name}, started with: ${job.curl}`, `received: ${listed.length ? listed.join(", ") : "nothing"}${calls.length > EVIDENCE_CALLS ? `, and ${calls.length - EVIDENCE_CALLS} more` : ""}`];
  const at = findings.find((finding) => finding.call !== undefined)?.call;
  if (at !== undefined) {
    const body = calls[at]!.body;
    lines.push(`call #${at + 1} body: ${body.length > EVIDENCE_BODY ? `${body.slice(0, EVIDENCE_BODY)}...` : body}`);
  }
  return lines;
}

interface ConcernCheck {
  concern: Concern;
  what: string;
  /** What a pass says, given the jobs. */
  passed: (jobs: JudgedJob[]) => string;
}

const count = (jobs: JudgedJob[]) => jobs.reduce((sum, job) => sum + job.record.calls.length, 0);

/** The context of a run with a webhook stage: the stage's receiver and jobs, shared by its checks. */
export interface StageContext extends CheckContext {
  webhooks?: WebhookStage;
}

/**
 * The webhook stage's checks of one operation whose requests carry a webhook (`startCrawl`): the
 * kit starts its jobs with a webhook to its own receiver and judges every call. `body` is a valid
 * request without the webhook.
 */
export function webhookChecks(contract: Contract, operationId: string, body: (ctx: CheckContext) => JsonObject): Check[] {
  const kind = contract.core.jobEvents(operationId);
  if (!kind) return [];
  const concerns: ConcernCheck[] = [
    {
      concern: "deliveries",
      what: `every call of a job started with a webhook keeps the contract: a documented event, its payload and headers, POST, the id the start answered`,
      passed: (jobs) => `${count(jobs)} calls of ${jobs.length} jobs keep the contract`,
    },
    {
      concern: "signature",
      what: "every call is signed with the secret given (--webhook-secret), as the description's x-webhook-signature says",
      passed: (jobs) => `${count(jobs)} calls carry a valid signature`,
    },
    {
      concern: "order",
      what: `${kind.first} arrives first and once, ${kind.last} last and once, nothing after it`,
      passed: (jobs) => jobs.map((job) => `${job.record.calls.length} calls in order`).join(", "),
    },
    {
      concern: "events",
      what: `only the events the webhook asks for are delivered (every event by default), ${kind.events.filter((event) => event !== kind.first && event !== kind.last).join(", ")} included when asked`,
      passed: (jobs) => jobs.map((job) => `${job.record.name}: ${[...new Set(job.record.calls.map((call) => call.type))].join(", ")}`).join("; "),
    },
    {
      concern: "metadata",
      what: "every call echoes the webhook's metadata and carries its headers",
      passed: (jobs) => `${count(jobs)} calls echo the metadata and carry the headers`,
    },
  ];
  return concerns.map(({ concern, what, passed }) => ({
    operation: operationId,
    name: `webhook-${concern}`,
    level: "webhooks",
    what,
    async run(ctx: StageContext): Promise<Outcome> {
      const stage = ctx.webhooks;
      if (!stage) return skip("the webhook stage is off");
      if (!stage.options.receiver) return skip(stage.options.unavailable ?? "no receiver the target can reach");
      if (concern === "signature" && stage.options.secret === undefined) return skip("not judged: no --webhook-secret to check signatures with");
      const run = await stage.run(ctx, operationId, kind, body(ctx));
      // One cause, one failure: the first check says why the jobs could not run, the others do not repeat it.
      if ("error" in run || "notStarted" in run) {
        if (concern !== "deliveries") return skip(`not run: the jobs could not be started (${operationId} webhook-deliveries says why)`);
        return "error" in run ? fail(run.error) : skip(run.notStarted);
      }
      // Nothing to judge: "0 calls carry a valid signature" would mean nothing. The first check fails, saying so.
      if (concern !== "deliveries" && count(run.jobs) === 0) return skip(`not judged: no call arrived from any job (${operationId} webhook-deliveries says why)`);
      const found = run.jobs.map((job) => ({ job, findings: job.findings.filter((finding) => finding.concern === concern) })).filter(({ findings }) => findings.length > 0);
      if (found.length === 0) return pass(passed(run.jobs));
      const all = found.flatMap(({ job, findings }) => findings.map((finding) => ({ job, finding })));
      const failures = all.filter(({ finding }) => finding.severity === "failure");
      const shown = failures.length > 0 ? failures : all;
      const first = shown[0]!;
      const more = shown.length > 1 ? ` (and ${shown.length - 1} more)` : "";
      const evidence = found.flatMap(({ job, findings }) => evidenceOf(job, findings));
      const reason = `${first.job.record.name}: ${first.finding.text}${more}`;
      return { ...(failures.length > 0 ? fail(reason) : warn(reason)), evidence };
    },
  }));
}
