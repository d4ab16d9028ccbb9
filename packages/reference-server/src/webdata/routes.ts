import type { FastifyInstance } from "fastify";
import type { ErrorObject } from "ajv";
import type { paths } from "@api-contracts/webdata-client";
import type { Fixtures } from "../fixtures.js";
import { createApp, registerOperation, type Answer, type Dialect, type HandlerInput, type RequestPart } from "../http.js";
import { SpecValidators, errorPath, usefulErrors } from "../spec.js";
import type { AnswerOf, PathOf, QueryOf, RequestBody } from "../typing.js";
import { WebdataStore } from "./store.js";

type StartCrawlOp = paths["/v2/crawl"]["post"];
type CancelCrawlOp = paths["/v2/crawl/{id}"]["delete"];
type ListSessionsOp = paths["/v2/interact"]["get"];
type ListBrowsersOp = paths["/v2/browser"]["get"];
type GetMonitorOp = paths["/v2/monitor/{monitorId}"]["get"];
type TokenUsageOp = paths["/v2/team/token-usage"]["get"];
type HistoricalOp = paths["/v2/team/credit-usage/historical"]["get"];
type ValidationError = Extract<AnswerOf<StartCrawlOp>, { status: 400 }>["body"];
type Issue = Extract<ValidationError, { code: "BAD_REQUEST" }>["details"][number];

const UNRECOGNIZED_KEY = "Unrecognized key in body -- please review the v2 API documentation for request body changes";

/** Translates one ajv error into the zod-style issue the service reports. */
function issue(error: ErrorObject): Issue {
  const params = error.params as Record<string, unknown>;
  const path = errorPath(error);
  switch (error.keyword) {
    case "required":
      return { code: "invalid_type", path, message: "Invalid input: expected a value, received undefined" };
    case "additionalProperties":
      return { code: "unrecognized_keys", keys: [String(params.additionalProperty)], path: path.slice(0, -1), message: `Unrecognized key: "${String(params.additionalProperty)}"` };
    case "type":
      return { code: "invalid_type", expected: String(params.type), path, message: `Invalid input: expected ${String(params.type)}` };
    case "enum":
      return { code: "invalid_value", path, message: `Invalid option: expected one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join("|")}` };
    case "const":
      return { code: "invalid_value", path, message: `Invalid input: expected ${JSON.stringify(params.allowedValue)}` };
    case "format":
    case "pattern":
      return { code: "invalid_format", path, message: `Invalid ${String(params.format ?? "format")}` };
    case "maximum":
    case "exclusiveMaximum":
    case "maxLength":
    case "maxItems":
      return { code: "too_big", path, message: `Too big: ${error.message ?? "value is too big"}` };
    case "minimum":
    case "exclusiveMinimum":
    case "minLength":
    case "minItems":
      return { code: "too_small", path, message: `Too small: ${error.message ?? "value is too small"}` };
    default:
      return { code: "custom", path, message: error.message ?? "Invalid input" };
  }
}

function dialect(apiKey: string): Dialect {
  const failure = (status: number, error: string): Answer => ({ status, body: { success: false, error } });
  return {
    authenticate(authorization) {
      if (authorization === undefined || authorization.trim() === "") return failure(401, "Unauthorized");
      const match = /^Bearer(?:\s+(\S*))?\s*$/i.exec(authorization);
      if (!match) return failure(401, "Unauthorized");
      if (!match[1]) return failure(401, "Unauthorized: Token missing");
      if (match[1] !== apiKey) return failure(401, "Unauthorized: Invalid token");
      return null;
    },
    invalid(part: RequestPart, errors, operationId) {
      if (operationId === "cancelCrawl" && part === "params") return failure(400, "Invalid job ID format. Job ID must be a valid UUID.");
      const useful = usefulErrors(errors);
      const details = useful.map(issue);
      const unknownMember = part === "body" && useful.some((e) => e.keyword === "additionalProperties");
      const body: ValidationError = { success: false, code: "BAD_REQUEST", error: unknownMember ? UNRECOGNIZED_KEY : "Bad Request", details: details.length > 0 ? details : [{ code: "custom", path: [], message: "Bad Request" }] };
      return { status: 400, body };
    },
    malformedJson: () => ({ status: 400, body: { success: false, code: "BAD_REQUEST_INVALID_JSON", error: "Bad request, malformed JSON" } }),
    tooLarge: () => failure(413, "Request body is too large"),
    notFound: (method, url) => failure(404, `No operation at ${method} ${url.split("?")[0]}`),
    internal: () => failure(500, "An unexpected error occurred on the server."),
  };
}

export interface WebdataAppOptions {
  fixtures: Required<Fixtures>;
  now: () => number;
}

/** The web data API: crawl start and cancel, sessions (and their `/v2/browser` alias), monitors, team usage. */
export function webdataApp({ fixtures }: WebdataAppOptions): { app: FastifyInstance; store: WebdataStore } {
  const store = new WebdataStore(fixtures.world.webdata);
  const words = dialect(fixtures.api_keys.webdata);
  const spec = SpecValidators.for("webdata");
  const app = createApp(words, 10 * 1024 * 1024);

  const startCrawl = (input: HandlerInput<RequestBody<StartCrawlOp>, QueryOf<StartCrawlOp>, PathOf<StartCrawlOp>>): AnswerOf<StartCrawlOp> => {
    const crawl = store.startCrawl(input.body.url, input.headers["x-idempotency-key"]);
    if (!crawl) return { status: 409, body: { success: false, error: "Idempotency key already used" } };
    const base = `${input.request.protocol}://${input.request.host}`;
    return { status: 200, body: { success: true, id: crawl.id, url: `${base}/v2/crawl/${crawl.id}` } };
  };

  const cancelCrawl = (input: HandlerInput<never, QueryOf<CancelCrawlOp>, PathOf<CancelCrawlOp>>): AnswerOf<CancelCrawlOp> => {
    const outcome = store.cancelCrawl(input.params.id);
    if (outcome === "not_found") return { status: 404, body: { error: "Crawl job not found." } };
    if (outcome === "already_finished") return { status: 409, body: { error: "Crawl is already completed" } };
    return { status: 200, body: { status: "cancelled" } };
  };

  const listSessions = (input: HandlerInput<never, QueryOf<ListSessionsOp>, PathOf<ListSessionsOp>>): AnswerOf<ListSessionsOp> & AnswerOf<ListBrowsersOp> => ({
    status: 200,
    body: { success: true, sessions: store.listSessions(input.query.status) },
  });

  const getMonitor = (input: HandlerInput<never, QueryOf<GetMonitorOp>, PathOf<GetMonitorOp>>): AnswerOf<GetMonitorOp> => {
    const monitor = store.monitor(input.params.monitorId);
    if (!monitor) return { status: 404, body: { success: false, error: "Monitor not found" } };
    return { status: 200, body: { success: true, data: monitor } };
  };

  const tokenUsage = (): AnswerOf<TokenUsageOp> => ({ status: 200, body: { success: true, data: store.tokenUsage() } });

  const historical = (input: HandlerInput<never, QueryOf<HistoricalOp>, PathOf<HistoricalOp>>): AnswerOf<HistoricalOp> => ({
    status: 200,
    body: { success: true, periods: store.historicalCreditUsage(input.query.byApiKey === true) },
  });

  registerOperation(app, spec, words, "POST", "/v2/crawl", startCrawl);
  registerOperation(app, spec, words, "DELETE", "/v2/crawl/{id}", cancelCrawl);
  registerOperation(app, spec, words, "GET", "/v2/interact", listSessions);
  registerOperation(app, spec, words, "GET", "/v2/browser", listSessions);
  registerOperation(app, spec, words, "GET", "/v2/monitor/{monitorId}", getMonitor);
  registerOperation(app, spec, words, "GET", "/v2/team/token-usage", tokenUsage);
  registerOperation(app, spec, words, "GET", "/v2/team/credit-usage/historical", historical);
  return { app, store };
}
