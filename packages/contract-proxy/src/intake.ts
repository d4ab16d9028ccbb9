// Intake: each request is read up to the judging limit and decided as the API decides it, then
// refused as the API refuses it (strict mode), or handed to fault injection and relaying; one larger
// than the limit streams to the upstream unjudged.
import type { IncomingMessage, ServerResponse } from "node:http";
import { originForm, pathOf, queryOf } from "@api-contracts/contract-core";
import { readUpTo } from "@api-contracts/contract-core/server";
import type { OwnAnswers } from "./answers.js";
import type { FaultStage } from "./faults.js";
import { NotJudged, type Judge } from "./judge.js";
import { notJudged, type Exchange, type Ledger } from "./ledger.js";
import type { Settings } from "./options.js";
import type { Forward } from "./relay.js";

/** The proxy's request listener. */
export function intake({ strict, judgeLimit: limit }: Settings, judge: Judge, ledger: Ledger, answers: OwnAnswers, faults: FaultStage, forward: Forward): (req: IncomingMessage, res: ServerResponse) => void {
  const tooLarge = (ex: Exchange, req: IncomingMessage, res: ServerResponse, read: Buffer[]) => {
    ex.unjudged.push(notJudged("request", `the body is larger than ${limit} bytes`));
    if (strict) return answers.answer(ex, res, { kind: "too-large", limit });
    forward(ex, req, res, read, req);
  };

  const judged = (ex: Exchange, req: IncomingMessage, res: ServerResponse, bytes: Buffer) => {
    try {
      const decision = judge.request(ex.operation, ex.method, ex.target, req.headers, bytes);
      ex.requestErrors = decision.problems;
      ex.sent.body = decision.read?.body;
      // A request whose every fault is a known difference is passed on, as in report-only mode.
      if (decision.refusal && answers.refuses(ex, 0, "request", decision.problems)) return answers.refuse(ex, res, decision);
    } catch (error) {
      const reason = error instanceof NotJudged ? error.message : "the body could not be judged";
      if (strict) return answers.answer(ex, res, { kind: "bad-request", message: `The request could not be checked: ${reason}` });
      ex.unjudged.push(notJudged("request", reason));
    }
    // A failure past the wait (the pool closed under it) ends this exchange, never the proxy.
    faults.forwardOrInject(ex, res, () => forward(ex, req, res, bytes.length > 0 ? [bytes] : [])).catch(() => res.destroy());
  };

  return (req, res) => {
    ledger.counts.exchanges++;
    const method = (req.method ?? "GET").toUpperCase();
    const origin = originForm(req.url ?? "/");
    const target = origin ?? req.url ?? "/";
    const path = pathOf(target);
    const operation = judge.contract.validators.findOperation(method, path);
    const sent = { query: Object.keys(queryOf(target)), headers: Object.keys(req.headers) };
    const ex: Exchange = { method, target, path, operation, headers: req.headers, requestErrors: [], unjudged: [], sent };
    if (origin === undefined) {
      const decision = judge.request(undefined, method, target, req.headers, Buffer.alloc(0));
      ex.requestErrors = decision.problems;
      return answers.refuse(ex, res, decision);
    }
    // A client that breaks off its request has gone; the server closes its socket.
    readUpTo(req, limit, { overflow: (read) => tooLarge(ex, req, res, read), end: (bytes) => judged(ex, req, res, bytes) });
  };
}
