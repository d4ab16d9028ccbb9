// The one place the console asks contract-core for a verdict: the API's contract, built in the
// browser from its facts and its description, makes the decision on a request (what the service
// would answer) and judges the answer as the kit, the proxy and conformance do; validateDelivery
// judges webhook calls.
import {
  ApiContract,
  problemsOf,
  signWebhook,
  summarizeAnswer,
  summarizeKeptAnswer,
  summarizeProblems,
  walkWebhooks,
  type ApiEntry,
  type ContractProblem,
  type IncomingRequest,
  type JsonObject,
  type WalkedOperation,
} from "@api-contracts/contract-core/contract";

export interface Verdict {
  ok: boolean;
  /** One line: what passed, or what broke first. */
  summary: string;
  problems: ContractProblem[];
}

export interface Answer {
  status: number;
  /** Header values by lower-case name. */
  headers: Record<string, string>;
  bodyText: string;
}

const failed = (summary: string, problems: ContractProblem[]): Verdict => ({ ok: false, summary, problems });

export function createJudge(api: ApiEntry, document: JsonObject) {
  const contract = new ApiContract(api, document);
  const { validators } = contract;

  /** The service's decision on the request, before it is sent: what it would answer when it refuses it. */
  function judgeRequest(request: IncomingRequest): Verdict {
    const decision = contract.decide(request);
    const refusal = contract.refusalOf(decision);
    if (!refusal) return { ok: true, summary: "the request keeps the contract", problems: [] };
    const code = contract.codeOf(refusal.body);
    return failed(`the service would answer ${refusal.status}${code ? ` ${code}` : ""}: ${summarizeProblems(decision.problems)}`, decision.problems);
  }

  /** The answer against what the operation documents for its status. */
  function judgeAnswer(op: Pick<WalkedOperation, "method" | "operationId">, answer: Answer): Verdict {
    const operation = validators.listOperations().find((candidate) => candidate.operationId === op.operationId);
    if (!operation) return failed(`${op.operationId} is not an operation of the contract`, []);
    const received = { status: answer.status, contentType: answer.headers["content-type"], bodyText: answer.bodyText };
    const { problems } = contract.judge.answer(operation, op.method, received);
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

  return { api, judgeRequest, judgeAnswer, judgeDelivery, signDelivery, webhookSignature: validators.webhookSignature, operations: validators.walkedOperations(), webhooks: walkWebhooks(document) };
}

export type Judge = ReturnType<typeof createJudge>;
