// The ./middleware entry: the opt-in middleware every client of this project shares (retries with
// exponential backoff, a per-attempt timeout and bearer auth for any openapi-fetch client) and what
// a client builds its own on. A client's `retry` option takes `retry()`; the main entry does not
// import this file, so an application without retries does not bundle it.
import type { Middleware } from "openapi-fetch";
import { deadline, positive } from "./deadline.js";
import { ClientRequest } from "./request.js";

export type { Middleware } from "openapi-fetch";
export { TimeoutError } from "./deadline.js";

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
  /** Which calls may be repeated. Default: {@link idempotentOrKeyed}; the entitlements client's `retry` has its own. */
  isRetrySafe?: RetrySafety;
  /**
   * Applies this deadline to every retried attempt too: set it when {@link timeout} is in use on an
   * openapi-fetch client of your own. A client's `timeoutMs` already covers each attempt.
   */
  timeoutMs?: number;
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

/** A copy of `request`, of the same class, under a {@link deadline} of `timeoutMs`. */
function withDeadline(request: Request, timeoutMs: number): Request {
  const signal = deadline(request, timeoutMs);
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
 * The codes of a connection refused, reset or closed, a host not found or unreachable, and of
 * undici's own connect, headers and body timeouts: Node's fetch puts them on its error's `cause`,
 * Bun's on the error itself (`ConnectionRefused`, `ConnectionClosed`, `FailedToOpenSocket` are
 * Bun's). A failure without one of these (an unknown scheme, a bad port, TLS) is not the network's.
 */
const NETWORK_CODES = /^(ECONN(RESET|REFUSED|ABORTED)|EPIPE|ETIMEDOUT|E(HOST|NET)UNREACH|ENOTFOUND|EAI_AGAIN|UND_ERR_(SOCKET|CONNECT_TIMEOUT|HEADERS_TIMEOUT|BODY_TIMEOUT)|ConnectionRefused|ConnectionClosed|FailedToOpenSocket)$/;

/** The TypeError messages of browsers' fetch when no answer came: Chromium, Firefox, Safari. */
const BROWSER_NETWORK_MESSAGES = /^(Failed to fetch|NetworkError when attempting to fetch resource|Load failed)/;

/**
 * Whether `error` means the call got no answer because of the network (refused, reset, closed,
 * no such host): the failures a retry can help with and a fail-open check answers locally. Node
 * (undici: `fetch failed`, or `terminated` for a body cut off) says so by the `code` of its
 * TypeError's cause, Bun by the `code` of the plain Error it throws, browsers by the message of
 * their TypeError. Every other error is not one, a TypeError included: a fetch that refuses to send
 * a request (an unknown scheme, an invalid header, a bug in a fetch of the caller's) fails the same
 * way on every attempt. Nor is an abort or a timeout (a DOMException, whose `code` is a number).
 */
export function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error.cause as { code?: unknown } | undefined)?.code ?? (error as { code?: unknown }).code;
  return NETWORK_CODES.test(String(code)) || (error instanceof TypeError && BROWSER_NETWORK_MESSAGES.test(error.message));
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

/**
 * Retries a call on 429, 502, 503 and network errors with exponential backoff, waiting at least
 * as long as `Retry-After` asks. Calls that `isRetrySafe` rejects are sent once.
 */
export function retry(options: RetryOptions = {}): Middleware {
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
