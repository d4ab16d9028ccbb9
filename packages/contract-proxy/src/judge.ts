import type { IncomingHttpHeaders } from "node:http";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import {
  ERROR_LIMIT,
  HTTP_METHODS,
  OpenApiValidators,
  escapePointer,
  fieldErrors,
  isJsonMediaType,
  matchMediaType,
  type FieldError,
  type OperationInfo,
  type Problem,
  type WalkedOperation,
} from "@api-contracts/contract-core";

/** One broken rule, as the report shows it. */
export interface RuleError {
  /** The part of the message at fault. */
  in: "body" | "header" | "query" | "path" | "status";
  /** JSON pointer inside that part: `/balance/remaining` in the body, `/content-type` among the headers. */
  pointer: string;
  /** The JSON Schema keyword that failed, or the proxy's own name for the rule (`status`, `media-type`, `json`, `operation`). */
  keyword: string;
  message: string;
}

/** A request judged: the rules it broke, and how the API would refuse it. */
export interface RequestVerdict {
  errors: RuleError[];
  problem?: Problem;
  /** The parsed JSON body, when there was one to judge. */
  body?: unknown;
}

/** What the response's status line and headers already tell, and how its body is to be judged. */
export interface ResponsePlan {
  errors: RuleError[];
  /** Present when the body is JSON with a documented schema; given the parsed body, returns its errors. */
  judgeBody?: (body: unknown) => RuleError[];
}

export function pointerOf(path: Array<string | number>): string {
  return path.map((part) => `/${escapePointer(String(part))}`).join("");
}

function messageOf(error: FieldError): string {
  switch (error.keyword) {
    case "required":
      return error.path.length === 0 && error.in === "body" ? "a body is required" : "is required";
    case "additionalProperties":
    case "unevaluatedProperties":
      return "is not a documented member";
    case "enum":
      return `must be one of ${(Array.isArray(error.params.allowedValues) ? error.params.allowedValues : []).map((v) => JSON.stringify(v)).join(", ")}`;
    default:
      return error.message;
  }
}

/**
 * Errors as the report shows them. A value that failed every branch of a nullable union
 * (`anyOf: [Balance, {type: null}]`) gets an error from each; when one branch failed deeper
 * inside the value, the value had that branch's shape, and "must be null" only adds noise.
 */
export function ruleErrors(errors: FieldError[]): RuleError[] {
  const shown = errors.map((error) => ({ in: error.in, pointer: pointerOf(error.path), keyword: error.keyword, message: messageOf(error) }));
  return shown.filter((e) => e.keyword !== "type" || !shown.some((deeper) => deeper.in === e.in && deeper.pointer.startsWith(`${e.pointer}/`)));
}

/** Query parameters as the validators read them: a repeated name becomes an array. */
export function queryOf(target: string): Record<string, string | string[]> {
  const mark = target.indexOf("?");
  const query: Record<string, string | string[]> = {};
  if (mark < 0) return query;
  for (const [name, value] of new URLSearchParams(target.slice(mark + 1))) {
    const seen = query[name];
    query[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return query;
}

function headerValues(headers: IncomingHttpHeaders): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) values[name] = Array.isArray(value) ? value.join(", ") : value;
  return values;
}

/** Thrown when a body cannot be judged within the limit (too large once decoded, or an unknown encoding). */
export class NotJudged extends Error {}

/** The bytes of a body as the content codings in `Content-Encoding` left them, never more than `limit` once decoded. */
export function decodeBody(bytes: Buffer, encoding: string | undefined, limit: number): Buffer {
  const codings = (encoding ?? "")
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && c !== "identity");
  let decoded = bytes;
  for (const coding of codings.reverse()) {
    try {
      if (coding === "gzip" || coding === "x-gzip") decoded = gunzipSync(decoded, { maxOutputLength: limit });
      else if (coding === "deflate") decoded = inflateSync(decoded, { maxOutputLength: limit });
      else if (coding === "br") decoded = brotliDecompressSync(decoded, { maxOutputLength: limit });
      else throw new NotJudged(`the body is encoded with ${coding.slice(0, 40)}, which the proxy does not decode`);
    } catch (error) {
      if (error instanceof NotJudged) throw error;
      if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw new NotJudged(`the body is larger than ${limit} bytes once decoded`);
      throw new NotJudged(`the body is not valid ${coding}`);
    }
  }
  return decoded;
}

function parseJson(bytes: Buffer): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(bytes.toString("utf8")) };
  } catch {
    return { error: "is not valid JSON" };
  }
}

/** Judges requests and responses of one API against its bundled description. */
export class Judge {
  private readonly walked: Map<string, WalkedOperation>;
  private readonly plans = new Map<string, ResponsePlan>();

  constructor(readonly validators: OpenApiValidators) {
    this.walked = new Map(validators.walkedOperations().map((op) => [op.pointer, op]));
  }

  findOperation(method: string, path: string): OperationInfo | undefined {
    return this.validators.findOperation(method, path);
  }

  /** Route, parameters and body of a request whose whole body was read. */
  request(operation: OperationInfo | undefined, method: string, target: string, headers: IncomingHttpHeaders, bytes: Buffer, limit: number): RequestVerdict {
    const path = target.split("?")[0]!;
    if (!operation) {
      const allowed = HTTP_METHODS.map((m) => m.toUpperCase()).filter((m) => this.validators.findOperation(m, path));
      const message = allowed.length > 0 ? `no ${method} operation is documented at this path; documented: ${allowed.join(", ")}` : "no operation is documented at this path";
      return { errors: [{ in: "path", pointer: "", keyword: "operation", message }], problem: { kind: "not-found", method, path, allowed } };
    }
    const validators = this.validators.request(operation.method, operation.path);
    let body: unknown;
    if (bytes.length > 0 && validators.body) {
      const contentType = headers["content-type"] ?? "";
      const documented = this.walked.get(operation.pointer)?.requestBody?.media.map((m) => m.mediaType) ?? [];
      const mediaType = matchMediaType(contentType, documented);
      if (mediaType === undefined || !isJsonMediaType(mediaType.toLowerCase())) {
        const message = `${contentType ? `'${contentType.slice(0, 100)}'` : "no content type"} is not documented; documented: ${documented.join(", ")}`;
        return { errors: [{ in: "header", pointer: "/content-type", keyword: "media-type", message }], problem: { kind: "unsupported-media-type", received: contentType || "(none)", supported: documented } };
      }
      const parsed = parseJson(decodeBody(bytes, headers["content-encoding"], limit));
      if ("error" in parsed) return { errors: [{ in: "body", pointer: "", keyword: "json", message: parsed.error }], problem: { kind: "malformed-json" } };
      body = parsed.value;
    }
    const found = validators.validate({ path, query: queryOf(target), headers: headerValues(headers), body });
    return found.length === 0 ? { errors: [], body } : { errors: ruleErrors(found), problem: { kind: "invalid", errors: found }, body };
  }

  /** Status and content type of a response, and the judge of its body when one is documented as JSON. */
  response(operation: OperationInfo, method: string, status: number, headers: IncomingHttpHeaders): ResponsePlan {
    // Plans depend only on these; most traffic repeats a few of them. Bounded against made-up content types.
    const key = `${operation.pointer} ${method} ${status} ${headers["content-type"]}`;
    let plan = this.plans.get(key);
    if (!plan) {
      if (this.plans.size >= 1024) this.plans.clear();
      plan = this.plan(operation, method, status, headers);
      this.plans.set(key, plan);
    }
    return plan;
  }

  private plan(operation: OperationInfo, method: string, status: number, headers: IncomingHttpHeaders): ResponsePlan {
    const documented = this.validators.documentedResponse(operation.method, operation.path, status);
    if (!documented) {
      const codes = this.walked.get(operation.pointer)?.responses.map((r) => r.status) ?? [];
      return { errors: [{ in: "status", pointer: "", keyword: "status", message: `${status} is not documented for ${operation.operationId}; documented: ${codes.join(", ")}` }] };
    }
    const mediaTypes = Object.keys(documented.content);
    // A HEAD answer, a 204 and a 304 carry no body, whatever the GET would.
    if (mediaTypes.length === 0 || method === "HEAD" || status === 204 || status === 304) return { errors: [] };
    const contentType = headers["content-type"];
    const mediaType = contentType === undefined ? undefined : matchMediaType(contentType, mediaTypes);
    if (mediaType === undefined) {
      const message = `${contentType === undefined ? "no content type" : `'${contentType.slice(0, 100)}'`} is not documented for ${status}; documented: ${mediaTypes.join(", ")}`;
      return { errors: [{ in: "header", pointer: "/content-type", keyword: "media-type", message }] };
    }
    if (!isJsonMediaType(mediaType.toLowerCase())) return { errors: [] };
    const validate = this.validators.response(operation.method, operation.path, status, contentType);
    if (!validate) return { errors: [] };
    return {
      errors: [],
      judgeBody: (body) => (validate(body) ? [] : ruleErrors(fieldErrors(validate.errors, "body", ERROR_LIMIT))),
    };
  }

  /** Parses a response body (decoded from its content coding) and judges it. */
  responseBody(plan: ResponsePlan, bytes: Buffer, encoding: string | undefined, limit: number): RuleError[] {
    const parsed = parseJson(decodeBody(bytes, encoding, limit));
    if ("error" in parsed) return [{ in: "body", pointer: "", keyword: "json", message: parsed.error }];
    return plan.judgeBody!(parsed.value);
  }
}
