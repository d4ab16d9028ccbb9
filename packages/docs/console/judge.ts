// The one place the console asks contract-core for a verdict. Everything else in the console
// reads the shape below, so when contract-core offers a judge of whole exchanges this module alone
// changes to call it.
import {
  OpenApiValidators,
  describeFieldError,
  escapePointer,
  fieldErrors,
  isJsonMediaType,
  matchMediaType,
  signWebhook,
  walkWebhooks,
  type FieldError,
  type JsonObject,
  type RequestParts,
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

const pointerOf = (path: Array<string | number>) => path.map((part) => `/${escapePointer(String(part))}`).join("");

function located(errors: FieldError[]): ProblemAt[] {
  return errors.map((error) => ({ in: error.in, pointer: pointerOf(error.path), keyword: error.keyword, message: describeFieldError(error) }));
}

function failed(summary: string, problems: ProblemAt[]): Verdict {
  return { ok: false, summary, problems };
}

export function createJudge(document: JsonObject) {
  const validators = new OpenApiValidators(document);

  /** The request as the contract reads it, before it is sent. */
  function judgeRequest(op: Operation, request: RequestParts): Verdict {
    const problems = located(validators.request(op.method, op.path).validate(request));
    if (problems.length === 0) return { ok: true, summary: `${op.operationId}: the request keeps the contract`, problems };
    return failed(`${op.operationId}: the contract refuses the request (${problems.length} problem${problems.length === 1 ? "" : "s"})`, problems);
  }

  /** The answer against what the operation documents for its status: the status itself, the media type, then the body's schema. */
  function judgeAnswer(op: Operation, answer: Answer): Verdict {
    const status = String(answer.status);
    const documented = validators.documentedResponse(op.method, op.path, answer.status);
    if (!documented) {
      const statuses = validators.walkedOperations().find((o) => o.operationId === op.operationId)?.responses.map((r) => r.status) ?? [];
      return failed(`status ${status} is not documented for ${op.operationId} (documented: ${statuses.join(", ")})`, [
        { in: "status", pointer: "", keyword: "status", message: `${status} is not a documented status` },
      ]);
    }
    const mediaTypes = Object.keys(documented.content);
    if (mediaTypes.length === 0) {
      if (answer.bodyText.trim() === "") return { ok: true, summary: `${status} with no body, as documented`, problems: [] };
      return failed(`${status} carries a body, but the contract documents none for ${op.operationId}`, [{ in: "body", pointer: "", keyword: "body", message: "is not documented" }]);
    }
    const contentType = answer.headers["content-type"];
    if (!contentType) {
      return failed(`${status} has no Content-Type (documented: ${mediaTypes.join(", ")})`, [{ in: "header", pointer: "/content-type", keyword: "mediaType", message: "content-type is missing" }]);
    }
    const mediaType = matchMediaType(contentType, mediaTypes);
    if (mediaType === undefined) {
      return failed(`${status} Content-Type ${contentType} is not documented (documented: ${mediaTypes.join(", ")})`, [
        { in: "header", pointer: "/content-type", keyword: "mediaType", message: `content-type must be ${mediaTypes.join(" or ")}` },
      ]);
    }
    let body: unknown = answer.bodyText;
    if (isJsonMediaType(contentType.split(";")[0]!.trim().toLowerCase())) {
      try {
        body = JSON.parse(answer.bodyText);
      } catch {
        return failed(`${status} body is not valid JSON although Content-Type is ${contentType}`, [{ in: "body", pointer: "", keyword: "json", message: "is not JSON" }]);
      }
    }
    const validate = validators.response(op.method, op.path, answer.status, contentType);
    if (!validate) return { ok: true, summary: `${status} ${mediaType} (no schema to judge)`, problems: [] };
    if (validate(body)) return { ok: true, summary: `${status} ${mediaType} matches the contract`, problems: [] };
    const problems = located(fieldErrors(validate.errors, "body"));
    return failed(`${status} body does not match the contract: ${problems[0]?.pointer || "(root)"} ${problems[0]?.message ?? ""}`.trim(), problems);
  }

  /** A webhook call as a receiver got it (raw body, headers, and the secret when signatures are to be checked). */
  function judgeDelivery(delivery: { headers: Record<string, string>; body: string }, secret: string | undefined): Verdict & { event?: string } {
    const verdict = validators.validateDelivery(delivery, secret === undefined || secret === "" ? {} : { secret });
    const problems = located(verdict.errors);
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
