// The one place the console asks contract-core for a verdict: its ExchangeJudge, the judgement
// and wording the kit, the proxy and conformance give, and validateDelivery for webhook calls.
import {
  ExchangeJudge,
  OpenApiValidators,
  problemsOf,
  signWebhook,
  summarizeAnswer,
  summarizeKeptAnswer,
  summarizeProblems,
  walkWebhooks,
  type JsonObject,
  type RequestToJudge,
} from "@api-contracts/contract-core/contract";

/** One problem, at the member it concerns. */
export interface ProblemAt {
  /** Where: a request part, the answer's `status`, its `header`s or its `body`. */
  in: string;
  /** JSON pointer of the member at fault inside that part ("" for the part itself). */
  pointer: string;
  keyword: string;
  message: string;
}

export interface Verdict {
  ok: boolean;
  /** One line: what passed, or what broke first. */
  summary: string;
  problems: ProblemAt[];
}

export interface Answer {
  status: number;
  /** Header values by lower-case name. */
  headers: Record<string, string>;
  bodyText: string;
}

export interface Operation {
  method: string;
  /** The path template: `/v2/crawl/{id}`. */
  path: string;
  operationId: string;
}

function failed(summary: string, problems: ProblemAt[]): Verdict {
  return { ok: false, summary, problems };
}

export function createJudge(document: JsonObject) {
  const validators = new OpenApiValidators(document);
  const exchanges = new ExchangeJudge(validators);

  /** The request as the contract reads it, before it is sent: contract-core's verdict, as the kit and the proxy give it. */
  function judgeRequest(op: Operation, request: RequestToJudge): Verdict {
    const { problems } = exchanges.request(request);
    if (problems.length === 0) return { ok: true, summary: `${op.operationId}: the request keeps the contract`, problems };
    return failed(summarizeProblems(problems), problems);
  }

  /** The answer against what the operation documents for its status: contract-core's verdict, as the kit and the proxy give it. */
  function judgeAnswer(op: Operation, answer: Answer): Verdict {
    const operation = validators.listOperations().find((candidate) => candidate.operationId === op.operationId);
    if (!operation) return failed(`${op.operationId} is not an operation of the contract`, []);
    const received = { status: answer.status, contentType: answer.headers["content-type"], bodyText: answer.bodyText };
    const { problems } = exchanges.answer(operation, op.method, received);
    if (problems.length === 0) return { ok: true, summary: summarizeKeptAnswer(received), problems };
    return failed(summarizeAnswer(answer.status, problems), problems);
  }

  /** A webhook call as a receiver got it (raw body, headers, and the secret when signatures are to be checked). */
  function judgeDelivery(delivery: { headers: Record<string, string>; body: string }, secret: string | undefined): Verdict & { event?: string } {
    const verdict = validators.validateDelivery(delivery, secret === undefined || secret === "" ? {} : { secret });
    const problems = problemsOf(verdict.errors);
    const what = verdict.event ?? "the call";
    if (problems.length === 0) return { ok: true, summary: `${what} keeps the contract${secret ? ", signature included" : " (signature not checked: no secret)"}`, problems, event: verdict.event };
    return { ...failed(`${what} breaks the contract (${problems.length} problem${problems.length === 1 ? "" : "s"})`, problems), event: verdict.event };
  }

  /** The headers that sign a raw body as the service would, under the description's `x-webhook-signature`. */
  function signDelivery(body: string, secret: string): Record<string, string> {
    if (!validators.webhookSignature) throw new Error("the description states no webhook signature");
    return signWebhook(validators.webhookSignature, body, secret);
  }

  return { judgeRequest, judgeAnswer, judgeDelivery, signDelivery, webhookSignature: validators.webhookSignature, operations: validators.walkedOperations(), webhooks: walkWebhooks(document) };
}

export type Judge = ReturnType<typeof createJudge>;
