import { checkWebhookSignature, describeFieldError, isObject, subscribesTo, subscriptionMismatches, type OpenApiValidators, type WebhookSubscription } from "@api-contracts/contract-core";
import type { Severity } from "../checks/types.js";
import type { ReceivedCall } from "./receiver.js";

/** What a finding is about; each is one check of the webhook stage. */
export type Concern = "deliveries" | "signature" | "order" | "events" | "metadata";

export interface Finding {
  concern: Concern;
  severity: Severity;
  text: string;
  /** The call it is about (its index in arrival order). */
  call?: number;
}

/** One job started with a webhook, and what its receiver got. */
export interface JobRecord {
  /** How the report names it: `the crawl with every event`. */
  name: string;
  /** The webhook as the request asked for it (the service's reading: defaults applied). */
  subscription: WebhookSubscription;
  /** The job's id, as the start answered it. */
  id: string;
  /** Calls received, in arrival order. */
  calls: ReceivedCall[];
  refused: { tooLarge: number; overCap: number };
  /** How long the receiver waited for the last event, in milliseconds. */
  waitedMs: number;
}

/** The webhooks of the job's kind: every event, the one sent first, the one sent last. */
export interface JobEvents {
  events: string[];
  first: string;
  last: string;
}

export interface JudgeOptions {
  validators: OpenApiValidators;
  /** The secret the target signs with; without it signatures are not judged. */
  secret?: string;
  /**
   * Calls sent without waiting for each other may arrive out of the order they were sent in (the
   * contract tells receivers to order by event): a call out of order by at most this many
   * milliseconds is a warning, by more a failure.
   */
  graceMs: number;
  /** Said after "no call arrived" when the receiver got no call from any job: the likely cause. */
  silentReceiver?: string;
}

const parsed = (call: ReceivedCall): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(call.body);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
};

/** Every way a job's calls disagree with the contract and with what its webhook asked. */
export function judgeJob(job: JobRecord, kind: JobEvents, options: JudgeOptions): Finding[] {
  const findings: Finding[] = [];
  const payloads = job.calls.map(parsed);
  const types = job.calls.map((call) => call.type);
  const named = (index: number) => `call #${index + 1} (${types[index] ?? "no type"}, at +${job.calls[index]!.at - (job.calls[0]?.at ?? 0)} ms)`;
  const add = (concern: Concern, severity: Severity, text: string, call?: number) => findings.push({ concern, severity, text: call === undefined ? text : `${named(call)}: ${text}`, ...(call === undefined ? {} : { call }) });
  const asked = (event: string) => subscribesTo(job.subscription, event);

  if (job.calls.length === 0) add("deliveries", "failure", `no call arrived within ${job.waitedMs} ms${options.silentReceiver ? `; ${options.silentReceiver}` : ""}`);
  if (job.refused.tooLarge > 0) add("deliveries", "failure", `${job.refused.tooLarge} call(s) refused: a body longer than the kit reads (--max-answer-bytes)`);
  if (job.refused.overCap > 0) add("deliveries", "failure", `${job.refused.overCap} call(s) refused: more calls than the kit keeps for one job`);

  for (const [index, call] of job.calls.entries()) {
    if (call.method !== "POST") add("deliveries", "failure", `sent with ${call.method}; the webhook is a POST`, index);
    const verdict = options.validators.validateDelivery({ headers: call.headers, body: call.body });
    for (const error of verdict.errors) add("deliveries", "failure", `${error.in} ${describeFieldError(error)}`, index);
    const payload = payloads[index];
    if (payload && verdict.event !== undefined && payload.id !== job.id) add("deliveries", "failure", `id ${JSON.stringify(payload.id)} is not the id the start answered (${job.id})`, index);

    if (options.secret !== undefined && options.validators.webhookSignature) {
      const signature = checkWebhookSignature(options.validators.webhookSignature, { headers: call.headers, body: call.body }, options.secret);
      if (!signature.ok) add("signature", "failure", `${signature.reason}: ${signature.message}`, index);
    }

    const type = types[index];
    if (type !== undefined && !kind.events.includes(type)) add("events", "failure", `${type} is not an event of this job's webhooks (${kind.events.join(", ")})`, index);
    if (payload) for (const mismatch of subscriptionMismatches(job.subscription, { payload, headers: call.headers })) add(mismatch.member === "events" ? "events" : "metadata", "failure", mismatch.message, index);
  }

  const indexesOf = (event: string) => types.flatMap((type, index) => (type === event ? [index] : []));
  const firsts = indexesOf(kind.first);
  const lasts = indexesOf(kind.last);
  if (asked(kind.first) && firsts.length === 0 && job.calls.length > 0) add("order", "failure", `no ${kind.first} was delivered`);
  if (firsts.length > 1) add("order", "failure", `${kind.first} was delivered ${firsts.length} times`);
  // No call at all is the deliveries' finding alone: one cause, one failure.
  if (asked(kind.last) && lasts.length === 0 && job.calls.length > 0) add("order", "failure", `no ${kind.last} within ${job.waitedMs} ms`);
  if (lasts.length > 1) add("order", "failure", `${kind.last} was delivered ${lasts.length} times`);
  const outOfOrder = (index: number, early: number, text: string) => {
    const by = Math.abs(job.calls[index]!.at - job.calls[early]!.at);
    const within = by <= options.graceMs;
    add("order", within ? "warning" : "failure", `${text} by ${by} ms${within ? ` (within ${options.graceMs} ms: calls sent at once may arrive so; a receiver that orders by event is not harmed)` : ""}`, index);
  };
  if (firsts.length > 0) for (const index of types.keys()) if (index < firsts[0]!) outOfOrder(index, firsts[0]!, `arrived before ${kind.first}`);
  if (lasts.length > 0) for (const index of types.keys()) if (index > lasts[0]! && types[index] !== kind.last) outOfOrder(index, lasts[0]!, `arrived after ${kind.last}`);
  // Every page the job tries is reported: a job that asked for its pages and got none lost them.
  const middle = kind.events.filter((event) => event !== kind.first && event !== kind.last);
  for (const event of middle) if (asked(event) && lasts.length > 0 && indexesOf(event).length === 0) add("events", "failure", `no ${event} was delivered before ${kind.last}, though the webhook asked for it`);
  return findings;
}
