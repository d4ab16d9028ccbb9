import type { IncomingHttpHeaders } from "node:http";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import type { AnswerJudgement, ApiContract, ContractProblem, Decision, OperationInfo } from "@api-contracts/contract-core";

/** One broken rule, as the report shows it: contract-core's problem, the same wherever an exchange is judged. */
export type RuleError = ContractProblem;

/** What the response's status line and headers already tell, and how its body is to be judged. */
export interface ResponsePlan {
  errors: RuleError[];
  /** Present when the body is to be read and judged: returns its errors and its JSON, given its bytes and their `Content-Encoding`. */
  judgeBody?: (bytes: Buffer, encoding: string | undefined) => AnswerJudgement;
}

/** Thrown when a body cannot be judged within the limit (too large once decoded, or an unknown encoding). */
export class NotJudged extends Error {}

/** A body decoded from its `Content-Encoding`; throws {@link NotJudged} past `limit` once decoded, or for a coding not decoded. */
function decoded(bytes: Buffer, encoding: string | undefined, limit: number): Buffer {
  const codings = (encoding ?? "").split(",").map((c) => c.trim().toLowerCase()).filter((c) => c !== "" && c !== "identity");
  let body = bytes;
  for (const coding of codings.reverse()) {
    try {
      if (coding === "gzip" || coding === "x-gzip") body = gunzipSync(body, { maxOutputLength: limit });
      else if (coding === "deflate") body = inflateSync(body, { maxOutputLength: limit });
      else if (coding === "br") body = brotliDecompressSync(body, { maxOutputLength: limit });
      else throw new NotJudged(`the body is encoded with ${coding.slice(0, 40)}, which the proxy does not decode`);
    } catch (error) {
      if (error instanceof NotJudged) throw error;
      if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw new NotJudged(`the body is larger than ${limit} bytes once decoded`);
      throw new NotJudged(`the body is not valid ${coding}`);
    }
  }
  return body;
}

/**
 * contract-core's judgement of exchanges, fed from the wire: bodies are decoded from their content
 * coding (here, with Node's zlib) before they are judged, and response plans are kept per status
 * and content type, as most traffic repeats a few of them.
 */
export class Judge {
  private readonly plans = new Map<string, ResponsePlan>();
  /** The operations that take a request body, by pointer. */
  private readonly takeBodies: ReadonlySet<string>;

  /** `limit` bounds every body judged, once decoded. */
  constructor(
    readonly contract: ApiContract,
    private readonly limit: number,
  ) {
    this.takeBodies = new Set(contract.validators.walkedOperations().flatMap((op) => (op.requestBody ? [op.pointer] : [])));
  }

  /**
   * The API's decision on a request whose whole body was read. The proxy cannot know which keys the
   * upstream accepts: any well-formed key passes, a missing one is the request's problem.
   */
  request(operation: OperationInfo | undefined, method: string, target: string, headers: IncomingHttpHeaders, bytes: Buffer): Decision {
    // A body the operation does not take is not decoded: nothing in it is judged.
    const takesBody = operation !== undefined && bytes.length > 0 && this.takeBodies.has(operation.pointer);
    return this.contract.judge.request({ method, target, headers, ...(takesBody ? { body: decoded(bytes, headers["content-encoding"], this.limit) } : {}) });
  }

  /** Status and content type of a response, and the judge of its body when there is one to judge. */
  response(operation: OperationInfo, method: string, status: number, headers: Record<string, string>): ResponsePlan {
    // Bounded against made-up content types.
    const key = `${operation.pointer} ${method} ${status} ${headers["content-type"]}`;
    let plan = this.plans.get(key);
    if (!plan) {
      if (this.plans.size >= 1024) this.plans.clear();
      const { judge } = this.contract;
      const judged = judge.answerPlan(operation, method, status, headers["content-type"]);
      const judgeBody = (bytes: Buffer, encoding?: string) => judge.answerBody(judged, decoded(bytes, encoding, this.limit).toString("utf8"));
      plan = { errors: judged.problems, ...(judged.body === "none" ? {} : { judgeBody }) };
      this.plans.set(key, plan);
    }
    return plan;
  }
}
