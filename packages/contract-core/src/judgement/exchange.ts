// One exchange judged against the contract: the request (route, parameters, media type, JSON,
// schema and x-rules), then the answer (status, media type, JSON, schema). The kit, the proxy,
// conformance and the docs console call this and keep only how they get the exchange and how
// they report it, so that one answer gets one verdict, worded one way, wherever it is judged.
// Browser-safe: no Node built-in.
import { escapePointer } from "../document/pointer.js";
import { HTTP_METHODS, type WalkedOperation } from "../document/walk.js";
import { fieldErrors, isJsonMediaType, matchMediaType, type FieldError, type HeaderValues, type OpenApiValidators, type OperationInfo } from "../validation/validators.js";
import { fieldMessage, truncate, type Problem } from "../wording/wording.js";

/** The part of a message a problem is in. */
export type ProblemPart = "body" | "header" | "query" | "path" | "status";

/** One broken rule of an exchange, as every tool reports it. */
export interface ContractProblem {
  in: ProblemPart;
  /** JSON pointer inside that part: `/balance/remaining` in the body, `/content-type` among the headers; empty for the part itself. */
  pointer: string;
  /** The JSON Schema keyword that failed, or the judgement's own name for the rule (`operation`, `status`, `media-type`, `json`, `body`). */
  keyword: string;
  message: string;
}

/** Problems named in one summary line; the rest are counted. */
const SUMMARY_SHOWN = 3;
/** Longest content type quoted in a message. */
const QUOTED_LIMIT = 100;

function pointerOf(path: ReadonlyArray<string | number>): string {
  return path.map((part) => `/${escapePointer(String(part))}`).join("");
}

/**
 * Validation errors as problems. A value that failed every branch of a nullable union (`anyOf:
 * [Balance, {type: null}]`) gets an error from each; when one branch failed deeper inside the
 * value, the value had that branch's shape, and "must be null" only adds noise.
 */
export function problemsOf(errors: readonly FieldError[]): ContractProblem[] {
  const shown = errors.map((error) => ({ in: error.in, pointer: pointerOf(error.path), keyword: error.keyword, message: fieldMessage(error) }));
  return shown.filter((e) => e.keyword !== "type" || !shown.some((deeper) => deeper.in === e.in && deeper.pointer.startsWith(`${e.pointer}/`)));
}

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
  const mediaType = answer.contentType?.split(";")[0]!.trim().toLowerCase();
  return mediaType && answer.bodyText.trim() !== "" ? `${answer.status} ${mediaType} matches the contract` : `${answer.status} with no body, as documented`;
}

/** Header values by lower-case name; of names that differ only in case, the last given wins, as a caller's override. */
function lowerCaseHeaders(headers: HeaderValues): Record<string, string> {
  const values = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) values.set(name.toLowerCase(), typeof value === "string" ? value : value.join(", "));
  return Object.fromEntries(values);
}

/** Query parameters of a request target as the validators read them: a repeated name becomes a list. */
export function queryOf(target: string): Record<string, string | string[]> {
  const mark = target.indexOf("?");
  // A Map, not an object: a parameter may be named `constructor` or `__proto__`.
  const query = new Map<string, string | string[]>();
  for (const [name, value] of new URLSearchParams(mark < 0 ? "" : target.slice(mark + 1))) {
    const seen = query.get(name);
    query.set(name, seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value]);
  }
  return Object.fromEntries(query);
}

/** A request as sent. */
export interface RequestToJudge {
  method: string;
  /** The request target: path and query (`/v2/crawl?x=1`), without the origin. */
  target: string;
  headers: HeaderValues;
  /** The body as text (decoded from its content coding); undefined or empty for none. */
  bodyText?: string;
}

/** A request judged: the operation it hits, the rules it broke, and how the API would refuse it. */
export interface RequestJudgement {
  operation?: OperationInfo;
  problems: ContractProblem[];
  /** Why the API refuses the request, for a server or proxy to word; absent when it keeps the contract. */
  refusal?: Problem;
  /** The parsed JSON body, when there was one to judge. */
  body?: unknown;
}

/** An answer as received. */
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

const quoted = (contentType: string | undefined | null) => (contentType ? `'${truncate(contentType, QUOTED_LIMIT)}'` : undefined);

/** Judges exchanges of one API against its bundled description. */
export class ExchangeJudge {
  private readonly walked: Map<string, WalkedOperation>;

  constructor(readonly validators: OpenApiValidators) {
    this.walked = new Map(validators.walkedOperations().map((op) => [op.pointer, op]));
  }

  findOperation(method: string, path: string): OperationInfo | undefined {
    return this.validators.findOperation(method, path);
  }

  /** The request's verdict: route, parameters, media type, JSON, then schema and x-rules. */
  request(request: RequestToJudge): RequestJudgement {
    const method = request.method.toUpperCase();
    const path = request.target.split("?")[0]!;
    const operation = this.findOperation(method, path);
    if (!operation) {
      const allowed = HTTP_METHODS.map((m) => m.toUpperCase()).filter((m) => this.findOperation(m, path));
      const documented = allowed.length > 0 ? `; documented at this path: ${allowed.join(", ")}` : "";
      const message = `${truncate(method, 20)} ${truncate(path, 200)} is not an operation of the contract${documented}`;
      return { problems: [{ in: "path", pointer: "", keyword: "operation", message }], refusal: { kind: "not-found", method, path, allowed } };
    }
    const validators = this.validators.request(operation.method, operation.path);
    const headers = lowerCaseHeaders(request.headers);
    let body: unknown;
    if (request.bodyText !== undefined && request.bodyText !== "" && validators.body) {
      const contentType = headers["content-type"] ?? "";
      const documented = this.walked.get(operation.pointer)?.requestBody?.media.map((m) => m.mediaType) ?? [];
      const mediaType = matchMediaType(contentType, documented);
      if (mediaType === undefined || !isJsonMediaType(mediaType.toLowerCase())) {
        const message = `${contentType ? `is ${quoted(contentType)}` : "is missing"}, which the request body does not take; documented: ${documented.join(", ")}`;
        return { operation, problems: [{ in: "header", pointer: "/content-type", keyword: "media-type", message }], refusal: { kind: "unsupported-media-type", received: contentType || "(none)", supported: documented } };
      }
      try {
        body = JSON.parse(request.bodyText);
      } catch {
        return { operation, problems: [{ in: "body", pointer: "", keyword: "json", message: "is not valid JSON" }], refusal: { kind: "malformed-json" } };
      }
    }
    const found = validators.validate({ path, query: queryOf(request.target), headers, body });
    return found.length === 0 ? { operation, problems: [], body } : { operation, problems: problemsOf(found), refusal: { kind: "invalid", errors: found }, body };
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
      const message = `${contentType ? `is ${quoted(contentType)}` : "is missing"}, which a ${status} answer to ${operation.operationId} does not take; documented: ${mediaTypes.join(", ")}`;
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
