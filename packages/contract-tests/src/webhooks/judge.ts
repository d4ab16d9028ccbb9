import { describeFinding, judgeJobCalls, type JobConcern, type JobJudgeOptions, type JobEvents, type OpenApiValidators, type WebhookSubscription } from "@api-contracts/contract-core";
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

/**
 * contract-core's options for judging a job's calls (`graceMs` by default its DELIVERY_ORDER_GRACE_MS;
 * without `secret` signatures are not judged), and what is said after "no call arrived" when the
 * receiver got no call from any job: the likely cause.
 */
type JudgeOptions = Pick<JobJudgeOptions, "secret" | "graceMs"> & { validators: OpenApiValidators; silentReceiver?: string };

/** The kit's checks by what contract-core's findings are about. */
const CONCERNS: Record<JobConcern, Concern> = { schema: "deliveries", method: "deliveries", id: "deliveries", signature: "signature", order: "order", events: "events", metadata: "metadata", headers: "metadata" };

/** Every way a job's calls disagree with the contract and with what its webhook asked (contract-core's judgement), and what the receiver refused. */
export function judgeJob(job: JobRecord, kind: JobEvents, options: JudgeOptions): Finding[] {
  const findings: Finding[] = [];
  const named = (index: number) => `call #${index + 1} (${job.calls[index]!.type ?? "no type"}, at +${job.calls[index]!.at - (job.calls[0]?.at ?? 0)} ms)`;
  const add = (concern: Concern, severity: Severity, text: string, call?: number) => findings.push({ concern, severity, text: call === undefined ? text : `${named(call)}: ${text}`, ...(call === undefined ? {} : { call }) });

  if (job.calls.length === 0) add("deliveries", "failure", `no call arrived within ${job.waitedMs} ms${options.silentReceiver ? `; ${options.silentReceiver}` : ""}`);
  if (job.refused.tooLarge > 0) add("deliveries", "failure", `${job.refused.tooLarge} call(s) refused: a body longer than the kit reads (--max-answer-bytes)`);
  if (job.refused.overCap > 0) add("deliveries", "failure", `${job.refused.overCap} call(s) refused: more calls than the kit keeps for one job`);
  const judged = judgeJobCalls(options.validators, { id: job.id, subscription: job.subscription, events: kind }, job.calls, {
    complete: true,
    // The kit's jobs crawl a site with pages: a page the webhook asked for that never came was lost.
    everyEvent: true,
    graceMs: options.graceMs,
    waited: `${job.waitedMs} ms`,
    secret: options.secret,
  });
  for (const finding of judged) add(CONCERNS[finding.concern], finding.severity, describeFinding(finding), finding.call);
  return findings;
}
