import { randomUUID } from "node:crypto";
import { createApiClient } from "@api-contracts/client-runtime";
import { readAnswerBody, type Decision, type ErrorReply, type IncomingRequest, type SentRequest } from "@api-contracts/contract-core";
import type { Contract, Exchange, Verdict } from "./judge.js";
import { CheckFailure } from "./checks/failure.js";

/** How a request authenticates: the real key, none, a wrong scheme, or a key the server cannot know. */
type AuthMode = "valid" | "none" | "wrong-scheme" | "invalid-key";

export interface CallOptions {
  auth?: AuthMode;
  body?: unknown;
  /** Sent verbatim instead of a JSON serialisation of `body` (for malformed JSON). */
  rawBody?: string;
  path?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
}

export interface CallResult {
  /** The request as it went out (the run's key in it), for the API's decision on it. */
  request: IncomingRequest;
  exchange: Exchange;
  /** The contract's verdict on the answer (status documented, content type, body schema). */
  verdict: Verdict;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
}

/**
 * The target could not be reached, or stopped answering: refused, unknown host, no answer (or
 * no end of an answer) within the per-request timeout, or the run's deadline passed.
 */
export class UnreachableError extends Error {
  override name = "UnreachableError";
}

/** An answer longer than the kit reads; the check fails and the run goes on. */
export class AnswerTooLargeError extends CheckFailure {
  override name = "AnswerTooLargeError";
}

/** Limits on what one request may cost; the defaults are those of the command line. */
interface RequestLimits {
  /** Longest wait for one answer, headers and body, in milliseconds. */
  timeoutMs: number;
  /** Most bytes read of one answer body. */
  maxAnswerBytes: number;
}

export const DEFAULT_LIMITS: RequestLimits = { timeoutMs: 10_000, maxAnswerBytes: 1_048_576 };

/** Statuses whose answer has no body by definition; a Response refuses one. */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

type RequestInitLoose = {
  body?: unknown;
  params?: { path?: Record<string, string>; query?: Record<string, unknown>; header?: Record<string, string> };
  headers?: Record<string, string>;
  parseAs?: "text";
  fetch?: (request: Request) => Promise<Response>;
  bodySerializer?: (body: unknown) => string;
};
type ResultLoose = { data?: unknown; error?: unknown; response: Response };
/** The generated clients, seen through their method-per-verb surface without per-path typing, so
 *  that the kit can also send the invalid requests the typed surface rightly refuses. */
type LooseClient = Record<string, (path: string, init: RequestInitLoose) => Promise<ResultLoose>>;

/** Makes an API's generated client for a key and a base URL. */
export type ClientFactory = (options: { apiKey: string; baseUrl: string }) => unknown;

/** The client of an API without a typed one: client-runtime's factory (openapi-fetch) over its description's paths. */
const describedClient: ClientFactory = ({ apiKey, baseUrl }) => createApiClient({ apiKey, baseUrl }, { clientName: "contract-test", keyHint: "pass --api-key", defaultBaseUrl: baseUrl });

interface CallerOptions {
  /** The API's typed client; without one, a client made from its description. */
  client?: ClientFactory;
  /** Headers sent with every request (a gateway's tenant or trace header); a check's own headers win. */
  headers?: Record<string, string>;
  contract: Contract;
  baseUrl: string;
  apiKey: string;
  limits?: RequestLimits;
  /** Aborts every request when the run's overall deadline passes. */
  deadline?: AbortSignal;
  /** Hides secrets in every text the caller hands on (answers echoing the key). */
  redact?: (text: string) => string;
  fetch?: typeof globalThis.fetch;
  /** Told of every exchange, as sent (before any redaction): the run's coverage counts it. */
  observe?: (observed: { exchange: Exchange; sent: SentRequest }) => void;
}

/** The JSON value of a text, or `otherwise` when it is not JSON. */
function parseJson(text: string, otherwise: unknown): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return otherwise;
  }
}

/** A made-up credential for the wrong-scheme check: the real key never travels in another scheme. */
export const WRONG_SCHEME_CREDENTIAL = `Basic ${Buffer.from("contract-test:not-a-key").toString("base64")}`;

/** Sends requests through the generated client of a service and records what went over the wire. */
export class Caller {
  private readonly client: LooseClient;
  private readonly basePath: string;

  constructor(private readonly options: CallerOptions) {
    this.basePath = new URL(options.baseUrl).pathname.replace(/\/+$/, "");
    this.client = (options.client ?? describedClient)({ apiKey: options.apiKey, baseUrl: options.baseUrl }) as LooseClient;
  }

  /** The API's decision on a request as it was sent (contract-core's): the run's key is the one key the target knows. */
  decide(request: IncomingRequest): Decision {
    return this.options.contract.core.decide(request, { acceptsKey: (key) => key === this.options.apiKey });
  }

  /** The answer the API's decision gives a request as it was sent, or undefined when the API serves it. */
  refusalFor(request: IncomingRequest): ErrorReply | undefined {
    return this.options.contract.core.refusalOf(this.decide(request));
  }

  /** Sends one request within the limits; a stalled or vanished target is an UnreachableError. */
  private async exchange(request: Request, headers: Headers, body: string | undefined): Promise<{ response: Response; bytes: Uint8Array<ArrayBuffer> }> {
    const { timeoutMs, maxAnswerBytes } = this.options.limits ?? DEFAULT_LIMITS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = this.options.deadline ? AbortSignal.any([timeout, this.options.deadline]) : timeout;
    const what = `${request.method} ${request.url}`;
    const stalled = (stage: string) =>
      this.options.deadline?.aborted
        ? new UnreachableError(`${what}: ${stage} when the run's deadline passed (--max-time)`)
        : new UnreachableError(`${what}: ${stage} within ${timeoutMs} ms (--timeout)`);
    let response: Response;
    try {
      response = await (this.options.fetch ?? globalThis.fetch)(request.url, { method: request.method, headers, body, signal });
    } catch (error) {
      if (signal.aborted) throw stalled("no answer");
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new UnreachableError(`${what}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
    }
    // More than the limit is refused without being read.
    const bytes = await readAnswerBody(response, maxAnswerBytes).catch((error: Error) => {
      throw signal.aborted ? stalled("the answer did not end") : new UnreachableError(`${what}: the answer broke off: ${error.message}`);
    });
    if (bytes === undefined) {
      throw new AnswerTooLargeError(`the answer to ${request.method} ${new URL(request.url).pathname} is longer than ${maxAnswerBytes} bytes (the --max-answer-bytes limit); the kit stopped reading it`);
    }
    return { response, bytes };
  }

  async call(operationId: string, options: CallOptions = {}): Promise<CallResult> {
    const ref = this.options.contract.operation(operationId);
    let recorded: Exchange | undefined;
    let incoming: IncomingRequest | undefined;
    let sent: SentRequest = {};
    const auth = options.auth ?? "valid";

    const recordingFetch = async (request: Request): Promise<Response> => {
      const headers = new Headers(request.headers);
      if (auth === "none") headers.delete("authorization");
      if (auth === "wrong-scheme") headers.set("authorization", WRONG_SCHEME_CREDENTIAL);
      if (auth === "invalid-key") headers.set("authorization", `Bearer contract-test-unknown-${randomUUID()}`);
      const sentBody = request.method !== "GET" && request.method !== "HEAD" ? await request.text() : undefined;
      const { response, bytes } = await this.exchange(request, headers, sentBody);
      const url = new URL(request.url);
      const sentHeaders: Record<string, string> = {};
      headers.forEach((value, name) => (sentHeaders[name] = value));
      sent = { query: [...url.searchParams.keys()], headers: Object.keys(sentHeaders), body: sentBody === undefined ? undefined : parseJson(sentBody, undefined) };
      const path = url.pathname.startsWith(this.basePath) ? url.pathname.slice(this.basePath.length) || "/" : url.pathname;
      incoming = { method: request.method, target: `${path}${url.search}`, headers: sentHeaders, ...(sentBody === undefined ? {} : { body: sentBody }) };
      recorded = {
        method: request.method,
        path,
        status: response.status,
        contentType: response.headers.get("content-type"),
        bodyText: new TextDecoder().decode(bytes),
      };
      const body = NULL_BODY_STATUSES.has(response.status) || bytes.byteLength === 0 ? null : bytes;
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    };

    const init: RequestInitLoose = {
      params: { path: options.path, query: options.query },
      headers: { ...this.options.headers, ...options.headers },
      parseAs: "text",
      fetch: recordingFetch,
      ...(options.rawBody !== undefined ? { body: options.rawBody, bodySerializer: String } : options.body !== undefined ? { body: options.body } : {}),
    };
    const send = this.client[ref.method];
    if (!send) throw new Error(`The client has no ${ref.method} method`);
    await send(ref.path, init);
    if (!recorded || !incoming) throw new Error(`${operationId}: the client sent no request`);
    const verdict = this.options.contract.judge(recorded);
    this.options.observe?.({ exchange: recorded, sent });
    const body = verdict.body === undefined ? parseJson(recorded.bodyText, recorded.bodyText) : verdict.body;
    // Judged as received; what checks may quote is shown with the key hidden.
    const redact = this.options.redact ?? ((text: string) => text);
    const shown: Exchange = { ...recorded, bodyText: redact(recorded.bodyText), contentType: recorded.contentType === null ? null : redact(recorded.contentType) };
    return { request: incoming, exchange: shown, verdict: { ...verdict, reason: redact(verdict.reason) }, body };
  }
}
