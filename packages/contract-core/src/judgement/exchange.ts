// One exchange judged against the contract: the request (the decision: route, authorization,
// media type, parameters, body, schema and x-rules, in the live service's order), then the answer
// (status, media type, JSON, schema). The kit, the proxy, conformance and the docs console call
// this and keep only how they get the exchange and how they report it, so that one answer gets one
// verdict, worded one way, wherever it is judged. Browser-safe: no Node built-in.
import type { WalkedOperation } from "../document/walk.js";
import { fieldErrors, type OpenApiValidators, type OperationInfo } from "../validation/validators.js";
import { isJsonMediaType, matchMediaType, mediaTypeOf } from "../wire/media-types.js";
import { contentTypeShown, problemsOf, type ContractProblem, type Decision, type DecideOptions, type IncomingRequest, type RequestDecider } from "./decision.js";

/** Problems named in one summary line; the rest are counted. */
const SUMMARY_SHOWN = 3;

/** One problem on one line: `body/customer_id is required`, `status 418 is not documented for checkAccess; …`. */
export function describeProblem(problem: ContractProblem): string {
  return `${problem.in}${problem.pointer} ${problem.message}`;
}

/** A list of problems on one line: the first `shown` (default three), and how many more. */
export function summarizeProblems(problems: readonly ContractProblem[], shown = SUMMARY_SHOWN): string {
  const lines = [...new Set(problems.map(describeProblem))];
  const more = lines.length > shown ? ` (and ${lines.length - shown} more)` : "";
  return `${lines.slice(0, shown).join("; ")}${more}`;
}

/**
 * An answer's problems on one line: `200 body/customer_id is required; …` (the status named once:
 * a status or Content-Type problem names it itself).
 */
export function summarizeAnswer(status: number, problems: readonly ContractProblem[], shown = SUMMARY_SHOWN): string {
  return `${problems[0]?.in === "body" ? `${status} ` : ""}${summarizeProblems(problems, shown)}`;
}

/** An answer that keeps the contract, on one line: `200 application/json matches the contract`, or `204 with no body, as documented`. */
export function summarizeKeptAnswer(answer: AnswerToJudge): string {
  const mediaType = mediaTypeOf(answer.contentType);
  return mediaType && answer.bodyText.trim() !== "" ? `${answer.status} ${mediaType} matches the contract` : `${answer.status} with no body, as documented`;
}

export interface AnswerToJudge {
  status: number;
  /** The `Content-Type` header; undefined or null when there was none. */
  contentType?: string | null;
  bodyText: string;
}

/**
 * What the status line and Content-Type of an answer already tell, and how its body is judged:
 * `none` when nothing is (a HEAD answer, 204, 304, a media type that is not JSON, an answer
 * already at fault), `empty` when the contract documents no body, `json` when it is to be parsed and
 * validated (`validate`, when a schema is documented).
 */
export interface AnswerPlan {
  problems: ContractProblem[];
  body: "none" | "empty" | "json";
  status: number;
  validate?: (value: unknown) => ContractProblem[];
}

/** An answer judged: its problems, and its parsed body when it was JSON. */
export interface AnswerJudgement {
  problems: ContractProblem[];
  body?: unknown;
}

/** Judges exchanges of one API: requests by the API's decision, answers against its description. */
export class ExchangeJudge {
  private readonly walked: Map<string, WalkedOperation>;
  readonly validators: OpenApiValidators;

  constructor(readonly decider: RequestDecider) {
    this.validators = decider.validators;
    this.walked = new Map(this.validators.walkedOperations().map((op) => [op.pointer, op]));
  }

  findOperation(method: string, path: string): OperationInfo | undefined {
    return this.validators.findOperation(method, path);
  }

  /** The request's verdict: the API's decision on it (any well-formed key taken, unless `acceptsKey` says). */
  request(request: IncomingRequest, options?: DecideOptions): Decision {
    return this.decider.decide(request, options);
  }

  /** Status and Content-Type of an answer to `operation`, and how its body is to be judged. */
  answerPlan(operation: OperationInfo, method: string, status: number, contentType: string | undefined | null): AnswerPlan {
    const documented = this.validators.documentedResponse(operation.method, operation.path, status);
    if (!documented) {
      const codes = this.walked.get(operation.pointer)?.responses.map((r) => r.status) ?? [];
      return { status, body: "none", problems: [{ in: "status", pointer: "", keyword: "status", message: `${status} is not documented for ${operation.operationId}; documented: ${codes.join(", ")}` }] };
    }
    // A HEAD answer, a 204 and a 304 carry no body, whatever the GET would.
    if (method.toUpperCase() === "HEAD" || status === 204 || status === 304) return { status, body: "none", problems: [] };
    const mediaTypes = Object.keys(documented.content);
    if (mediaTypes.length === 0) return { status, body: "empty", problems: [] };
    const mediaType = contentType ? matchMediaType(contentType, mediaTypes) : undefined;
    if (mediaType === undefined) {
      const message = `${contentTypeShown(contentType)}, which a ${status} answer to ${operation.operationId} does not take; documented: ${mediaTypes.join(", ")}`;
      return { status, body: "none", problems: [{ in: "header", pointer: "/content-type", keyword: "media-type", message }] };
    }
    if (!isJsonMediaType(mediaType.toLowerCase())) return { status, body: "none", problems: [] };
    const schema = this.validators.response(operation.method, operation.path, status, mediaType);
    const validate = schema && ((value: unknown) => (schema(value) ? [] : problemsOf(fieldErrors(schema.errors, "body"))));
    return { status, body: "json", problems: [], ...(validate ? { validate } : {}) };
  }

  /** The body of an answer whose plan asks for it to be judged. */
  answerBody(plan: AnswerPlan, bodyText: string): AnswerJudgement {
    if (plan.body === "empty") {
      return { problems: bodyText.trim() === "" ? [] : [{ in: "body", pointer: "", keyword: "body", message: `is present, but a ${plan.status} answer documents none` }] };
    }
    if (plan.body !== "json") return { problems: [] };
    let body: unknown;
    try {
      body = JSON.parse(bodyText);
    } catch {
      return { problems: [{ in: "body", pointer: "", keyword: "json", message: "is not valid JSON" }] };
    }
    return { problems: plan.validate?.(body) ?? [], body };
  }

  /** The answer's verdict: status, media type, JSON and schema. */
  answer(operation: OperationInfo, method: string, answer: AnswerToJudge): AnswerJudgement {
    const plan = this.answerPlan(operation, method, answer.status, answer.contentType);
    const judged = this.answerBody(plan, answer.bodyText);
    return { problems: [...plan.problems, ...judged.problems], ...(judged.body === undefined ? {} : { body: judged.body }) };
  }
}
