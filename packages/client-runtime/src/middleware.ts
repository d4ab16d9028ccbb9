// Middleware shared by every client of this project: bearer auth, a per-attempt timeout and
// retries with exponential backoff, and the factory that builds a client on the transport of
// ./request.ts. Nothing here knows an API: a client passes its name, key hint, base URL and which
// of its calls are safe to repeat.
import createClient, { type Client, type ClientOptions, type Middleware } from "openapi-fetch";
import { ClientRequest } from "./request.js";

export type { Middleware } from "openapi-fetch";
export { ClientRequest } from "./request.js";

/** Statuses worth another attempt: rate limited, bad gateway, unavailable. */
const retryable = (status: number) => status === 429 || status === 502 || status === 503;

export interface RetryOptions {
  /** Attempts after the first one. Default 2. */
  retries?: number;
  /** Delay before the first retry, in milliseconds; doubles on each further retry. Default 250. */
  baseDelayMs?: number;
  /** Longest wait between attempts, in milliseconds. A `Retry-After` longer than this ends the retries. Default 8000. */
  maxDelayMs?: number;
  /** Called before each retry, e.g. to log it. */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  /** 1 for the first retry. */
  attempt: number;
  /** How long the client waits before this retry, in milliseconds. */
  delayMs: number;
  /** The status that caused the retry, or `"network-error"`. */
  reason: number | "network-error";
  method: string;
  url: string;
}

/** Decides whether a call may be sent twice. Receives an untouched copy of the request. */
export type RetrySafety = (request: Request, schemaPath: string) => boolean | Promise<boolean>;

/** The call's HTTP method is idempotent (RFC 9110, section 9.2.2), or it carries an `x-idempotency-key` header. */
export const idempotentOrKeyed: RetrySafety = (request) =>
  /^(GET|HEAD|OPTIONS|PUT|DELETE|TRACE)$/.test(request.method) || request.headers.has("x-idempotency-key");

/** Raised when an attempt takes longer than `timeoutMs`. */
export class TimeoutError extends Error {
  override readonly name = "TimeoutError";
  constructor(
    readonly timeoutMs: number,
    url: string,
  ) {
    super(`Request to ${url} timed out after ${timeoutMs} ms`);
  }
}

/** Throws a TypeError naming the client when the API key is missing or blank. */
export function requireApiKey(apiKey: unknown, clientName: string, hint: string): string {
  if (typeof apiKey !== "string" || apiKey.trim() === "") {
    throw new TypeError(`${clientName}: apiKey is required (${hint})`);
  }
  return apiKey;
}

/** Sends the API key as `Authorization: Bearer <key>` on every call. */
export function bearerAuth(apiKey: string): Middleware {
  const value = `Bearer ${apiKey}`;
  return {
    onRequest({ request }) {
      request.headers.set("Authorization", value);
      return request;
    },
  };
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number of milliseconds, got ${value}`);
  return value;
}

/**
 * A copy of `request`, of the same class, that aborts with the caller's signal or after `timeoutMs`
 * with a {@link TimeoutError}. fetch, and the answer's body read any way after it, reject with the
 * reason their signal aborted with, so the deadline's own error reaches the caller as it is, body
 * included, with no wrapper on the answer.
 */
function withDeadline(request: Request, timeoutMs: number): Request {
  const deadline = new AbortController();
  // unref: like AbortSignal.timeout's, the timer alone does not keep Node running.
  (setTimeout(() => deadline.abort(new TimeoutError(timeoutMs, request.url)), timeoutMs) as { unref?: () => void }).unref?.();
  const own = ClientRequest.ownSignal(request);
  const signal = own ? AbortSignal.any([own, deadline.signal]) : deadline.signal;
  return ClientRequest.is(request) ? (new ClientRequest(request, { signal }) as unknown as Request) : new Request(request, { signal });
}

/**
 * Whether `error` means an attempt ran out of time: the {@link TimeoutError} a deadline aborts
 * with, or the platform's own DOMException of a caller's `AbortSignal.timeout()`.
 */
export function isTimeoutError(error: unknown): boolean {
  return error instanceof Error && error.name === "TimeoutError";
}

/**
 * Whether `error` means the call got no answer because of the network (refused, reset, closed,
 * no such host): the failures a retry can help with and a fail-open check answers locally. Node
 * (undici: `fetch failed`) and browsers (`Failed to fetch`, `Load failed`, `NetworkError ...`)
 * throw a TypeError; Bun throws a plain Error with a `code` such as `ECONNRESET` or
 * `ConnectionRefused`. An abort or a timeout (a DOMException, whose `code` is a number) is not one.
 */
export function isNetworkError(error: unknown): boolean {
  // The codes of the plain Error Bun's fetch throws when a connection is refused, reset or closed.
  return error instanceof TypeError || (error instanceof Error && /^(ECONNRESET|ECONNREFUSED|ConnectionRefused|ConnectionClosed|FailedToOpenSocket)$/.test((error as { code?: unknown }).code as string));
}

/** Aborts each attempt that takes longer than `timeoutMs`, headers and body, with a {@link TimeoutError}. */
export function timeout(timeoutMs: number): Middleware {
  positive(timeoutMs, "timeoutMs");
  return {
    onRequest: ({ request }) => withDeadline(request, timeoutMs),
  };
}

/** Milliseconds asked for by a `Retry-After` header (seconds or an HTTP date), if any. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Most bytes of a retryable answer held in memory between attempts. Error bodies are small; a
 * longer one ends the retries and is handed to the caller as it streams, unread.
 */
export const RETAINED_ANSWER_LIMIT = 64 * 1024;

/**
 * Reads a retryable answer into memory, so that its connection is freed and it stays readable
 * after its own attempt's deadline. `held` is false when the answer was longer than
 * {@link RETAINED_ANSWER_LIMIT}: its response then streams what was read and the rest.
 */
export async function settle(response: Response): Promise<{ response: Response; held: boolean }> {
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  const reader = response.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let next; reader && !(next = await reader.read()).done; ) {
    chunks.push(next.value);
    if ((size += next.value.byteLength) > RETAINED_ANSWER_LIMIT) {
      // What was read first, then the rest as it arrives.
      const rest = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const chunk = chunks.shift() ?? (await reader.read()).value;
          if (chunk) controller.enqueue(chunk);
          else controller.close();
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return { response: new Response(rest, init), held: false };
    }
  }
  return { response: new Response(reader ? new Blob(chunks as BlobPart[]) : null, init), held: true };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    // Called by the timer or by the signal, whichever comes first.
    const wake = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", wake);
      if (signal.aborted) reject(signal.reason);
      else resolve();
    };
    const timer = setTimeout(wake, ms);
    signal.addEventListener("abort", wake);
    if (signal.aborted) wake();
  });
}

export interface RetryMiddlewareOptions extends RetryOptions {
  /** Which calls may be repeated. Default: {@link idempotentOrKeyed}. */
  isRetrySafe?: RetrySafety;
  /** Applies this deadline to every retried attempt too (set it when {@link timeout} is in use). */
  timeoutMs?: number;
}

/**
 * Retries a call on 429, 502, 503 and network errors with exponential backoff, waiting at least
 * as long as `Retry-After` asks. Calls that `isRetrySafe` rejects are sent once.
 */
export function retry(options: RetryMiddlewareOptions = {}): Middleware {
  const { retries = 2, baseDelayMs = 250, maxDelayMs = 8000, onRetry, isRetrySafe = idempotentOrKeyed, timeoutMs } = options;
  if (!Number.isInteger(retries) || retries < 0) throw new RangeError(`retries must be a whole number >= 0, got ${retries}`);
  positive(baseDelayMs, "baseDelayMs");
  positive(maxDelayMs, "maxDelayMs");
  // Untouched copies of retry-safe requests, by call id: the body of the sent request is consumed.
  const pristine = new Map<string, Request>();

  /** The wait before retry `attempt`: the backoff, or longer when `Retry-After` asks; none past maxDelayMs. */
  function delayBefore(attempt: number, outcome: Response | unknown): number | undefined {
    const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
    const asked = outcome instanceof Response ? (retryAfterMs(outcome.headers.get("retry-after")) ?? 0) : 0;
    return asked > maxDelayMs ? undefined : Math.max(backoff, asked);
  }

  /** Runs the remaining attempts; resolves to the last response, or the last error if none came. */
  async function attempts(copy: Request, first: Response | unknown, fetchFn: typeof fetch): Promise<Response | unknown> {
    let outcome: Response | unknown = first;
    let lastResponse: Response | undefined;
    for (let attempt = 0; ; ) {
      try {
        if (attempt) outcome = await fetchFn(timeoutMs === undefined ? copy.clone() : withDeadline(copy.clone(), timeoutMs));
        if (outcome instanceof Response) {
          if (attempt && !retryable(outcome.status)) return outcome;
          const settled = await settle(outcome);
          if (!settled.held) return settled.response;
          outcome = lastResponse = settled.response;
        }
      } catch (error) {
        outcome = error;
        // The first answer could not be read: the call fails as it would have without retries.
        if (!attempt) throw outcome;
        if (!isNetworkError(error)) break;
      }
      const delayMs = ++attempt > retries ? undefined : delayBefore(attempt, outcome);
      if (delayMs === undefined) break;
      onRetry?.({ attempt, delayMs, reason: outcome instanceof Response ? outcome.status : "network-error", method: copy.method, url: copy.url });
      await sleep(delayMs, copy.signal);
    }
    return lastResponse ?? outcome;
  }

  return {
    async onRequest({ request, schemaPath, id }) {
      if (retries > 0 && (await isRetrySafe(request.clone(), schemaPath))) pristine.set(id, request.clone());
      return undefined;
    },
    async onResponse({ response, id, options }) {
      const copy = pristine.get(id);
      pristine.delete(id);
      if (!copy || !retryable(response.status)) return undefined;
      const result = await attempts(copy, response, options.fetch);
      return result instanceof Response ? result : response;
    },
    async onError({ error, id, options }) {
      const copy = pristine.get(id);
      pristine.delete(id);
      if (!copy || !isNetworkError(error)) return undefined;
      const result = await attempts(copy, error, options.fetch);
      return result instanceof Response || result instanceof Error ? result : undefined;
    },
  };
}

/** Options every client factory of this project accepts. */
export interface CommonClientOptions {
  /** Secret API key, sent as `Authorization: Bearer <apiKey>`. Required. */
  apiKey: string | undefined;
  /** Root of the API; the live service when omitted. */
  baseUrl?: string | undefined;
  /** A fetch implementation, e.g. one with a proxy agent; it receives a global Request. Default: the global fetch. */
  fetch?: ((input: Request) => Promise<Response>) | undefined;
  /** Headers sent with every call. */
  headers?: Record<string, string> | undefined;
  /** Abort each attempt after this many milliseconds. Off by default. */
  timeoutMs?: number | undefined;
  /** Retry 429, 502, 503 and network errors on calls that are safe to repeat. Off by default; `true` uses the defaults of {@link RetryOptions}. */
  retry?: boolean | RetryOptions | undefined;
}

/** What a client factory tells {@link createApiClient} about its API. */
export interface ClientFactorySettings {
  /** Named in errors, e.g. `createEntitlementsClient`. */
  clientName: string;
  /** Appended to the missing-key error, e.g. `pass your API key, which starts with fc-`. */
  keyHint: string;
  defaultBaseUrl: string;
  isRetrySafe?: RetrySafety;
  /** Middleware that must see the final outcome of a call, after retries (registered first). */
  outer?: Middleware[];
}

/** Builds an openapi-fetch client with auth and the opt-in timeout and retry middleware. */
export function createApiClient<Paths extends {}>(options: CommonClientOptions, settings: ClientFactorySettings): Client<Paths> {
  const apiKey = requireApiKey(options?.apiKey, settings.clientName, settings.keyHint);
  const baseUrl = options.baseUrl ?? settings.defaultBaseUrl;
  // Checked once here, so that no call has to parse its URL before fetch does.
  if (!URL.canParse(baseUrl)) throw new TypeError(`${settings.clientName}: baseUrl must be an absolute URL, got "${baseUrl}"`);
  const clientOptions: ClientOptions = {
    baseUrl,
    Request: ClientRequest as unknown as typeof Request,
    // A custom fetch gets the global Request it is written for.
    fetch: options.fetch ? (request: Request) => options.fetch!(ClientRequest.toRequest(request)) : ClientRequest.send,
    // A default header rather than a middleware: a client without timeout, retry or fail-open then
    // runs no middleware at all, which saves openapi-fetch a call id and an options object per call.
    headers: { ...options.headers, Authorization: `Bearer ${apiKey}` },
  };
  const client = createClient<Paths>(clientOptions);
  const { timeoutMs } = options;
  // onRequest runs in this order and onResponse/onError in reverse: retry keeps a copy of the
  // request before the deadline is attached, and gives each copy it sends a deadline of its own.
  const chain: Middleware[] = [...(settings.outer ?? [])];
  // `retry: true` spreads to no options, the defaults.
  if (options.retry) chain.push(retry({ ...(options.retry as RetryOptions), timeoutMs, isRetrySafe: settings.isRetrySafe }));
  if (timeoutMs !== undefined) chain.push(timeout(timeoutMs));
  client.use(...chain);
  return client;
}
