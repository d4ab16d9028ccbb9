// Relaying to the upstream: a judged request is forwarded, and its answer, as undici hands it over,
// is read whole and judged (then passed on with its length, or replaced in strict mode) or streamed
// through as it arrives.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { Dispatcher, Pool } from "undici/index.js";
import { endToEnd, normalizeHeaders } from "@api-contracts/contract-core";
import { endSlowly, joinChunks } from "@api-contracts/contract-core/server";
import { closeWhileBodyArrives, type OwnAnswers } from "./answers.js";
import type { FaultStage } from "./faults.js";
import { NotJudged, type Judge, type ResponsePlan, type RuleError } from "./judge.js";
import { notJudged, type Exchange, type Ledger } from "./ledger.js";
import type { Settings } from "./options.js";
import type { StartedJobs } from "./webhooks.js";
import { VIOLATIONS_HEADER, bodyOf, forwardedHeaders, pairsOf } from "./wire.js";

const NOT_FORWARDED_IN_RESPONSES = new Set([VIOLATIONS_HEADER]);
const UNSENDABLE = "the upstream's answer cannot be passed on as HTTP/1.1";

/** The status line and headers of the upstream's answer. */
interface UpstreamAnswer {
  status: number;
  statusMessage: string | undefined;
  /** As received: lower-case names, repeated ones as arrays. */
  headers: Record<string, string | string[] | undefined>;
  /** The headers as the judge reads them (contract-core's normalizeHeaders: one value each). */
  judged: Record<string, string>;
}

export type Forward = (ex: Exchange, req: IncomingMessage, res: ServerResponse, read: Buffer[], rest?: IncomingMessage) => void;

/** Forwards a request with its body read whole (`read`), or what was read of it and the `rest` to stream; `jobs` notes the jobs started with a webhook, when webhook calls are relayed. */
export function relay({ upstreamUrl, judgeLimit: limit, requestTimeout }: Settings, pool: Pool, judge: Judge, ledger: Ledger, answers: OwnAnswers, faults: FaultStage, jobs: StartedJobs | undefined): Forward {
  const basePath = upstreamUrl.pathname.replace(/\/+$/, "");
  const tooLarge = `the body is larger than ${limit} bytes`;

  const writeHead = (res: ServerResponse, answer: UpstreamAnswer, count: number, length?: number): boolean => {
    const headers = endToEnd(pairsOf(answer.headers), NOT_FORWARDED_IN_RESPONSES);
    if (length !== undefined && answer.headers["content-length"] === undefined) headers.push("content-length", String(length));
    headers.push(VIOLATIONS_HEADER, String(count));
    for (const [name, value] of Object.entries(closeWhileBodyArrives(res))) headers.push(name, value);
    try {
      res.writeHead(answer.status, answer.statusMessage || STATUS_CODES[answer.status] || "", headers);
      return true;
    } catch {
      // A status or header node refuses to send (for instance a status outside 100-999).
      return false;
    }
  };

  /** Begins passing the upstream's answer on as it arrives, after what was already read of it; false when it was refused instead. */
  const stream = (ex: Exchange, res: ServerResponse, answer: UpstreamAnswer, headErrors: RuleError[], already: Buffer[]): boolean => {
    if (headErrors.length > 0 && answers.refuses(ex, answer.status, "response", headErrors)) {
      answers.replaceAnswer(ex, res, answer.status, headErrors);
      return false;
    }
    faults.settleSlowBody(ex, false);
    if (!writeHead(res, answer, ledger.finish(ex, answer.status, headErrors))) {
      answers.badGateway(ex, res, UNSENDABLE);
      return false;
    }
    for (const chunk of already) res.write(chunk);
    return true;
  };

  /** The answer read whole: judged, then passed on with its length, or replaced in strict mode. */
  const judgeWhole = (ex: Exchange, res: ServerResponse, answer: UpstreamAnswer, plan: ResponsePlan, bytes: Buffer) => {
    let found: RuleError[] = plan.errors;
    let body: unknown;
    try {
      const judged = plan.judgeBody!(bytes, answer.judged["content-encoding"]);
      found = [...plan.errors, ...judged.problems];
      body = judged.body;
    } catch (error) {
      ex.unjudged.push(notJudged("response", error instanceof NotJudged ? error.message : "the body could not be judged"));
    }
    if (found.length > 0 && answers.refuses(ex, answer.status, "response", found)) return answers.replaceAnswer(ex, res, answer.status, found);
    // A job the upstream started with a webhook is remembered, so that its relayed calls are judged against what it asked.
    if (jobs && ex.operation && answer.status >= 200 && answer.status < 300) jobs.note(ex.operation, ex.sent.body, body);
    if (!writeHead(res, answer, ledger.finish(ex, answer.status, found), bytes.length)) return answers.badGateway(ex, res, UNSENDABLE);
    if (!ex.slowBody) return void res.end(bytes);
    faults.settleSlowBody(ex, true);
    endSlowly(res, bytes, requestTimeout);
  };

  /** What becomes of the upstream's answer, as undici hands it over: read whole and judged, or streamed through. */
  const handler = (ex: Exchange, res: ServerResponse): Dispatcher.DispatchHandler => {
    let controller: Dispatcher.DispatchController | undefined;
    let answer: UpstreamAnswer | undefined;
    let plan: ResponsePlan = { errors: [] };
    // Chunks of an answer being read whole; undefined once it streams (or was refused: then `refused`).
    let held: Buffer[] | undefined;
    let size = 0;
    let refused = false;
    // A client that goes away takes its upstream request with it.
    res.once("close", () => {
      if (!res.writableFinished) controller?.abort(new Error("the client went away"));
    });
    const startStreaming = (already: Buffer[]) => {
      held = undefined;
      if (!stream(ex, res, answer!, plan.errors, already)) {
        refused = true;
        controller?.abort(new Error("the answer was replaced"));
      }
    };
    return {
      onRequestStart(started) {
        controller = started;
        if (res.destroyed) started.abort(new Error("the client went away"));
      },
      onResponseStart(_controller, status, headers, statusMessage) {
        // Informational answers (100, 103) belong to the upstream's connection, not to the exchange.
        if (status < 200) return;
        answer = { status, statusMessage, headers, judged: normalizeHeaders(headers) };
        if (ex.operation) {
          try {
            plan = judge.response(ex.operation, ex.method, status, answer.judged);
          } catch {
            ex.unjudged.push(notJudged("response", "the description could not be applied to this answer"));
          }
        }
        if (!plan.judgeBody) return startStreaming([]);
        if (Number(answer.judged["content-length"]) > limit) {
          ex.unjudged.push(notJudged("response", tooLarge));
          return startStreaming([]);
        }
        held = [];
      },
      onResponseData(flow, chunk) {
        if (refused) return;
        if (held) {
          held.push(chunk);
          size += chunk.length;
          if (size <= limit) return;
          ex.unjudged.push(notJudged("response", tooLarge));
          return startStreaming(held);
        }
        if (!res.write(chunk)) {
          // The client reads slower than the upstream writes: stop reading the upstream until it catches up.
          flow.pause();
          res.once("drain", () => flow.resume());
        }
      },
      onResponseEnd() {
        if (refused || !answer) return;
        if (held) judgeWhole(ex, res, answer, plan, joinChunks(held, size));
        else res.end();
      },
      onResponseError(_controller, error) {
        if (!refused) answers.failed(ex, res, error);
      },
    };
  };

  return (ex, req, res, read, rest) => {
    const whole = rest ? undefined : joinChunks(read);
    const body = rest ? bodyOf(read, rest) : whole!.length > 0 ? whole : null;
    pool.dispatch({ method: req.method!, path: basePath + ex.target, headers: forwardedHeaders(req, upstreamUrl.host, whole), body }, handler(ex, res));
  };
}
