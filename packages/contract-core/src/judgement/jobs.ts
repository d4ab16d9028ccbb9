// A job's webhook calls judged against the contract and against what its webhook asked: each call
// (contract-core's validateDelivery, its id, its event, the echoed metadata and headers), then
// their order. The kit, the proxy and conformance call this and keep only how they get the calls
// and how they report the findings.
import { isObject } from "../document/pointer.js";
import type { ApiFacts } from "../generated/api-facts.js";
import { walkWebhooks } from "../document/walk.js";
import type { Delivery, OpenApiValidators } from "../validation/validators.js";
import type { HeaderValues } from "../wire/headers.js";
import { DELIVERY_ORDER_GRACE_MS, subscribesTo, subscriptionMismatches, takesWebhook, type WebhookSubscription } from "../webhooks/subscriptions.js";
import { problemsOf, type ContractProblem } from "./decision.js";
import { describeProblem } from "./exchange.js";

/** The webhooks of a job's kind: every event, the one sent first, the one sent last. */
export interface JobEvents {
  events: string[];
  first: string;
  last: string;
}

/** How an API's jobs report on themselves: its facts' `jobs`. */
export type JobConventions = NonNullable<ApiFacts["jobs"]>;

/**
 * The webhooks an operation's requests subscribe to, read from the contract: those sharing its
 * tag, with a first (`*.started`) and a last (`*.completed`) event, as the API's job conventions
 * name them. Undefined when its requests take no webhook.
 */
export function jobEventsOf(validators: OpenApiValidators, operationId: string, jobs: JobConventions): JobEvents | undefined {
  const walked = validators.walkedOperations().find((op) => op.operationId === operationId);
  if (!walked || !takesWebhook(validators.document, walked, jobs.webhookMember)) return undefined;
  const tagsOf = (node: unknown) => (isObject(node) && Array.isArray(node.tags) ? node.tags.filter((tag): tag is string => typeof tag === "string") : []);
  const tags = tagsOf(walked.operation);
  const events = walkWebhooks(validators.document)
    .filter((webhook) => tagsOf(webhook.operation).some((tag) => tags.includes(tag)))
    .map((webhook) => webhook.event);
  const first = events.find((event) => event.endsWith(`.${jobs.firstEvent}`));
  const last = events.find((event) => event.endsWith(`.${jobs.lastEvent}`));
  return first && last ? { events, first, last } : undefined;
}

/** One call as its receiver got it. */
export interface JobCall extends Delivery {
  /** When it arrived, in milliseconds on any clock; without it, order is judged by position alone. */
  at?: number;
  /** Upper case; a call without one is taken for a POST. */
  method?: string;
}

/** A job started with a webhook. */
export interface JobToJudge {
  /** The job's id, as its start answered it. */
  id: string;
  /** The webhook as the start request asked for it (the service's reading: defaults applied). */
  subscription: WebhookSubscription;
  events: JobEvents;
}

export type JobConcern = "schema" | "signature" | "method" | "id" | "events" | "metadata" | "headers" | "order";

export interface JobFinding {
  concern: JobConcern;
  /** `warning` for calls out of order within the grace calls sent at once may arrive in. */
  severity: "failure" | "warning";
  /** The call it is about (its index in arrival order); absent for the job as a whole. */
  call?: number;
  problem: ContractProblem;
}

export interface JobJudgeOptions {
  /** The receiver's secret; signatures are judged when given and the contract states a scheme. */
  secret?: string;
  /** Calls out of order by at most this many milliseconds may have been sent in order (default {@link DELIVERY_ORDER_GRACE_MS}). */
  graceMs?: number;
  /**
   * Whether every call of the job is in (true: a missing last event is a finding), or more may
   * come (a proxy judging calls as they pass: only what the calls so far already break).
   */
  complete: boolean;
  /** Said after a missing last event: how long the receiver waited. */
  waited?: string;
  /**
   * Whether the job is known to have something for each event (a crawl of a site with pages): then
   * an event the webhook asked for that never came before the last is a finding. A job may have
   * none (a crawl with limit 0), so only a caller that made the job can say so.
   */
  everyEvent?: boolean;
}

/**
 * What a call breaks against what its job's webhook asked, given its parsed payload: its id, its
 * event, the echoed metadata and the webhook's headers. Nothing for a payload that is not an object
 * with a type (the schema's finding alone).
 */
export function askedFindings(job: JobToJudge, call: { payload: unknown; headers: HeaderValues; documented: boolean }, index?: number): JobFinding[] {
  const findings: JobFinding[] = [];
  const add = (concern: JobConcern, problem: ContractProblem) => findings.push({ concern, severity: "failure", ...(index === undefined ? {} : { call: index }), problem });
  const payload = isObject(call.payload) ? call.payload : undefined;
  const type = typeof payload?.type === "string" ? payload.type : undefined;
  if (!payload || type === undefined) return findings;
  if (payload.id !== job.id) add("id", { in: "body", pointer: "/id", keyword: "webhook-id", message: `id ${JSON.stringify(payload.id) ?? "undefined"} is not the id the start answered (${job.id})` });
  // An event no webhook documents is the schema's finding alone.
  if (call.documented && !job.events.events.includes(type)) add("events", { in: "body", pointer: "/type", keyword: "webhook-events", message: `${type} is not an event of this job's webhooks (${job.events.events.join(", ")})` });
  for (const mismatch of subscriptionMismatches(job.subscription, { payload, headers: call.headers })) {
    if (mismatch.member === "headers") add("headers", { in: "header", pointer: `/${mismatch.name!.toLowerCase()}`, keyword: "webhook-headers", message: mismatch.message });
    else add(mismatch.member, { in: "body", pointer: mismatch.member === "events" ? "/type" : "/metadata", keyword: `webhook-${mismatch.member}`, message: mismatch.message });
  }
  return findings;
}

/** The problem of a webhook call sent with another method than POST; undefined for a POST. */
export function methodProblem(method: string): ContractProblem | undefined {
  const upper = method.toUpperCase();
  return upper === "POST" ? undefined : { in: "path", pointer: "", keyword: "method", message: `a webhook call is a POST, not ${upper}` };
}

/** What each call breaks on its own: its contract (schema, signature), its method, and what its webhook asked. */
function callFindings(validators: OpenApiValidators, job: JobToJudge, call: JobCall, index: number, secret: string | undefined): { findings: JobFinding[]; type?: string } {
  const findings: JobFinding[] = [];
  const method = methodProblem(call.method ?? "POST");
  if (method) findings.push({ concern: "method", severity: "failure", call: index, problem: method });
  const verdict = validators.validateDelivery({ headers: call.headers, body: call.body }, secret !== undefined && validators.webhookSignature ? { secret } : {});
  for (const problem of problemsOf(verdict.errors)) findings.push({ concern: problem.keyword === "signature" ? "signature" : "schema", severity: "failure", call: index, problem });
  findings.push(...askedFindings(job, { payload: verdict.payload, headers: call.headers, documented: verdict.event !== undefined }, index));
  return { findings, type: isObject(verdict.payload) && typeof verdict.payload.type === "string" ? verdict.payload.type : undefined };
}

/**
 * The order of a job's calls: its first event first and once, its last event last and once,
 * nothing after it, and each event the webhook asked for before the last. A call out of place
 * by at most `graceMs` (when arrival times are known) is a warning: calls sent at once may
 * arrive so, and a receiver that orders by event is not harmed.
 */
export function orderFindings(job: JobToJudge, calls: ReadonlyArray<{ at?: number }>, types: ReadonlyArray<string | undefined>, options: Pick<JobJudgeOptions, "complete" | "graceMs" | "waited" | "everyEvent">): JobFinding[] {
  const findings: JobFinding[] = [];
  const { first, last, events } = job.events;
  const graceMs = options.graceMs ?? DELIVERY_ORDER_GRACE_MS;
  const asked = (event: string) => subscribesTo(job.subscription, event);
  const add = (message: string, call?: number, severity: JobFinding["severity"] = "failure") => findings.push({ concern: "order", severity, ...(call === undefined ? {} : { call }), problem: { in: "body", pointer: "/type", keyword: "webhook-order", message } });
  const indexesOf = (event: string) => types.flatMap((type, index) => (type === event ? [index] : []));
  const firsts = indexesOf(first);
  const lasts = indexesOf(last);
  const outOfOrder = (index: number, other: number, text: string) => {
    const [at, otherAt] = [calls[index]!.at, calls[other]!.at];
    if (at === undefined || otherAt === undefined) return add(text, index);
    const by = Math.abs(at - otherAt);
    const within = by <= graceMs;
    add(`${text} by ${by} ms${within ? ` (within ${graceMs} ms: calls sent at once may arrive so; a receiver that orders by event is not harmed)` : ""}`, index, within ? "warning" : "failure");
  };
  if (calls.length === 0) return findings;
  // Only once the job is over, or its last event came, is a missing first event known.
  if (asked(first) && firsts.length === 0 && (options.complete || lasts.length > 0)) add(`no ${first} was delivered`);
  if (firsts.length > 1) add(`${first} was delivered ${firsts.length} times`);
  if (asked(last) && lasts.length === 0 && options.complete) add(options.waited ? `no ${last} within ${options.waited}` : `no ${last} was delivered`);
  if (lasts.length > 1) add(`${last} was delivered ${lasts.length} times`);
  if (firsts.length > 0) for (const index of types.keys()) if (index < firsts[0]!) outOfOrder(index, firsts[0]!, `arrived before ${first}`);
  if (lasts.length > 0) for (const index of types.keys()) if (index > lasts[0]! && types[index] !== last) outOfOrder(index, lasts[0]!, `arrived after ${last}`);
  // Every page the job tries is reported: a job that asked for its pages and got none lost them.
  const middle = events.filter((event) => event !== first && event !== last);
  for (const event of options.everyEvent ? middle : []) {
    if (asked(event) && lasts.length > 0 && indexesOf(event).length === 0) {
      findings.push({ concern: "events", severity: "failure", problem: { in: "body", pointer: "/type", keyword: "webhook-events", message: `no ${event} was delivered before ${last}, though the webhook asked for it` } });
    }
  }
  return findings;
}

/**
 * Every way a job's calls, in arrival order, disagree with the contract and with what its webhook
 * asked: each call on its own, then their order.
 */
export function judgeJobCalls(validators: OpenApiValidators, job: JobToJudge, calls: readonly JobCall[], options: JobJudgeOptions): JobFinding[] {
  const judged = calls.map((call, index) => callFindings(validators, job, call, index, options.secret));
  return [...judged.flatMap((one) => one.findings), ...orderFindings(job, calls, judged.map((one) => one.type), options)];
}

/**
 * A finding on one line: a problem of the call's contract as {@link describeProblem} writes it
 * (`body/webhookId is required`), one against what the webhook asked by its own sentence.
 */
export function describeFinding(finding: JobFinding): string {
  return finding.concern === "schema" || finding.concern === "signature" ? describeProblem(finding.problem) : finding.problem.message;
}
