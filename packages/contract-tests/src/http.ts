import { randomUUID } from "node:crypto";
import { createEntitlementsClient } from "@api-contracts/entitlements-client";
import { createWebdataClient } from "@api-contracts/webdata-client";
import type { Contract, Exchange, Service, Verdict } from "./judge.js";

/** How a request authenticates: the real key, none, a wrong scheme, or a key the server cannot know. */
export type AuthMode = "valid" | "none" | "wrong-scheme" | "invalid-key";

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
  exchange: Exchange;
  /** The contract's verdict on the answer (status documented, content type, body schema). */
  verdict: Verdict;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
}

/** The target could not be reached at all (refused, unknown host, no answer). */
export class UnreachableError extends Error {
  override name = "UnreachableError";
}

const REQUEST_TIMEOUT_MS = 30_000;

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

export interface CallerOptions {
  service: Service;
  contract: Contract;
  baseUrl: string;
  apiKey: string;
  fetch?: typeof globalThis.fetch;
}

/** Sends requests through the generated client of a service and records what went over the wire. */
export class Caller {
  private readonly client: LooseClient;
  private readonly basePath: string;
  private readonly baseFetch: typeof globalThis.fetch;
  /** Whether any request has been answered; an unreachable target before that is a usage error. */
  reached = false;

  constructor(private readonly options: CallerOptions) {
    this.baseFetch = options.fetch ?? globalThis.fetch;
    this.basePath = new URL(options.baseUrl).pathname.replace(/\/+$/, "");
    const factory = options.service === "entitlements" ? createEntitlementsClient : createWebdataClient;
    this.client = factory({ apiKey: options.apiKey, baseUrl: options.baseUrl }) as unknown as LooseClient;
  }

  async call(operationId: string, options: CallOptions = {}): Promise<CallResult> {
    const ref = this.options.contract.operation(operationId);
    let recorded: Exchange | undefined;
    const auth = options.auth ?? "valid";

    const recordingFetch = async (request: Request): Promise<Response> => {
      const headers = new Headers(request.headers);
      if (auth === "none") headers.delete("authorization");
      if (auth === "wrong-scheme") headers.set("authorization", `Basic ${Buffer.from(`user:${this.options.apiKey}`).toString("base64")}`);
      if (auth === "invalid-key") headers.set("authorization", `Bearer contract-test-unknown-${randomUUID()}`);
      const hasBody = request.method !== "GET" && request.method !== "HEAD";
      let response: Response;
      try {
        response = await this.baseFetch(request.url, {
          method: request.method,
          headers,
          body: hasBody ? await request.text() : undefined,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        throw new UnreachableError(`${request.method} ${request.url}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
      }
      this.reached = true;
      const url = new URL(request.url);
      const path = url.pathname.startsWith(this.basePath) ? url.pathname.slice(this.basePath.length) || "/" : url.pathname;
      recorded = {
        method: request.method,
        path,
        status: response.status,
        contentType: response.headers.get("content-type"),
        bodyText: await response.clone().text(),
      };
      return response;
    };

    const init: RequestInitLoose = {
      params: { path: options.path, query: options.query },
      headers: options.headers,
      parseAs: "text",
      fetch: recordingFetch,
    };
    if (options.rawBody !== undefined) {
      init.body = options.rawBody;
      init.bodySerializer = (body) => String(body);
    } else if (options.body !== undefined) {
      init.body = options.body;
    }
    const send = this.client[ref.method];
    if (!send) throw new Error(`The ${this.options.service} client has no ${ref.method} method`);
    await send(ref.pathTemplate, init);
    if (!recorded) throw new Error(`${operationId}: the client sent no request`);
    const verdict = this.options.contract.judge(recorded);
    let body: unknown = verdict.body;
    if (body === undefined) {
      try {
        body = JSON.parse(recorded.bodyText);
      } catch {
        body = recorded.bodyText;
      }
    }
    return { exchange: recorded, verdict, body };
  }
}
