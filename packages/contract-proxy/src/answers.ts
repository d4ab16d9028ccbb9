// The proxy's own answers, in the API's words (contract-core's ApiContract): a strict refusal of a
// request, exactly as the API refuses it, and a 502 in place of an answer that breaks the contract or
// never came.
import type { ServerResponse } from "node:http";
import { summarizeProblems, type ApiContract, type Decision, type ErrorReply, type Problem } from "@api-contracts/contract-core";
import type { FaultStage } from "./faults.js";
import type { RuleError } from "./judge.js";
import type { Exchange, Ledger } from "./ledger.js";
import type { Settings } from "./options.js";
import type { Violation } from "./report.js";
import { VIOLATIONS_HEADER, upstreamProblem } from "./wire.js";

/** Violations a 502 in place of an answer names; the rest are counted. */
const NAMED_IN_REFUSAL = 5;

/**
 * An answer given while the request's body is still arriving (a refusal, or the upstream's early
 * answer) closes the connection: reading that body would be the cost the early answer avoids, and
 * the closing connection lingers (contract-core's lingerOnClose) so that the client reads the answer.
 */
export function closeWhileBodyArrives(res: ServerResponse): Record<string, string> {
  return res.req.complete ? {} : { connection: "close" };
}

export type OwnAnswers = ReturnType<typeof ownAnswers>;

/** The proxy's own answers, and whether strict mode refuses what an exchange breaks. */
export function ownAnswers({ strict, upstreamTimeout }: Settings, contract: ApiContract, ledger: Ledger, faults: FaultStage) {
  /** Answers `reply` in the upstream's place; the exchange's lines are written with `judgedStatus` when the upstream's answer was judged. */
  const give = (ex: Exchange, res: ServerResponse, reply: ErrorReply, judgedStatus?: number, responseErrors: RuleError[] = []): void => {
    faults.settleSlowBody(ex, false);
    const count = ledger.finish(ex, judgedStatus ?? reply.status, responseErrors);
    const text = JSON.stringify(reply.body);
    res.writeHead(reply.status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), [VIOLATIONS_HEADER]: String(count), ...closeWhileBodyArrives(res) });
    res.end(text);
  };

  /** Answers in the upstream's place with the API's answer to `problem`. */
  const answer = (ex: Exchange, res: ServerResponse, problem: Problem, judgedStatus?: number, responseErrors?: RuleError[]) =>
    give(ex, res, contract.reply(problem, ex.operation), judgedStatus, responseErrors);

  const badGateway = (ex: Exchange, res: ServerResponse, message: string, judgedStatus?: number, responseErrors?: RuleError[]) =>
    answer(ex, res, { kind: "bad-gateway", message: ledger.redactFor(ex)(message) }, judgedStatus, responseErrors);

  return {
    answer,
    /** Refuses a request as the API does: the answer of its decision. */
    refuse: (ex: Exchange, res: ServerResponse, decision: Decision) => give(ex, res, contract.refusalOf(decision)!),
    badGateway,
    /** Whether strict mode refuses what `found` breaks: not when known differences explain all of it. */
    refuses: (ex: Exchange, status: number, direction: Violation["direction"], found: RuleError[]): boolean => strict && !ledger.explained(ex, status, direction, found),
    /** Replaces the upstream's answer that breaks the contract by a 502 naming what it breaks. */
    replaceAnswer: (ex: Exchange, res: ServerResponse, status: number, found: RuleError[]) =>
      badGateway(ex, res, `the upstream's ${status} answer to ${ex.operation?.operationId ?? ex.method} breaks the contract: ${summarizeProblems(found, NAMED_IN_REFUSAL)}`, status, found),
    /** The upstream gave no whole answer: a 502 when nothing was sent yet; once an answer has begun, cutting it short is the only honest ending. */
    failed: (ex: Exchange, res: ServerResponse, error: Error): void => {
      if (!res.headersSent) return badGateway(ex, res, upstreamProblem(error, upstreamTimeout));
      if (!res.writableEnded) res.destroy();
    },
  };
}
