// The ./middleware entry: the entitlements client's opt-in middleware. `retry()` is the shared
// retry with this API's rule of which calls are safe to repeat, and `failOpen()` answers a check
// locally when the service is down. The main entry does not import this file, so an application
// that uses neither does not bundle them.
import type { Middleware } from "openapi-fetch";
import type { components } from "./generated/entitlements.js";
import { idempotentOrKeyed, isNetworkError, isTimeoutError, retry as sharedRetry, settle, type RetryOptions, type RetrySafety } from "@api-contracts/client-runtime/middleware";

// Every middleware of the runtime, its `retry` replaced by this client's own below.
export * from "@api-contracts/client-runtime/middleware";

/** The check's path, and its older alias. */
const isCheck = (schemaPath: string) => schemaPath === "/v1/balances.check" || schemaPath === "/v1/check";

async function jsonBody(request: Request): Promise<Record<string, unknown>> {
  try {
    const body: unknown = await request.clone().json();
    return typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Repeats idempotent methods, calls carrying an idempotency key (`idempotency_key` on track) and
 * checks that neither record usage (`send_event`) nor place a hold (`lock`), since those only read.
 */
export const entitlementsRetrySafe: RetrySafety = async (request, schemaPath) => {
  if (idempotentOrKeyed(request, schemaPath)) return true;
  const body = await jsonBody(request);
  if (typeof body.idempotency_key === "string") return true;
  return isCheck(schemaPath) && body.send_event !== true && body.lock === undefined;
};

function openAnswer(request: Record<string, unknown>, cause: string): Response {
  const answer: components["schemas"]["CheckResponse"] = { allowed: true, customer_id: String(request.customer_id ?? ""), balance: null, flag: null };
  if (typeof request.entity_id === "string") answer.entity_id = request.entity_id;
  if (typeof request.required_balance === "number") answer.required_balance = request.required_balance;
  return Response.json(answer, { status: 202, headers: { "x-fail-open": cause } });
}

/** Why a check may be answered locally after this error: a timeout or a network error; otherwise undefined. */
function openCause(error: unknown): string | undefined {
  // A deadline's TimeoutError, or the platform's DOMException of a caller's own timeout signal.
  return isTimeoutError(error) ? "timeout" : isNetworkError(error) ? "network error" : undefined;
}

/**
 * Answers a check with `allowed: true` (status 202, header `x-fail-open`) when the service is down:
 * a 5xx or 429 answer, a network error ({@link isNetworkError}) or a timeout. Any other error, such
 * as a request fetch refuses to send, reaches the caller.
 */
export function failOpen(): Middleware {
  const checks = new Map<string, Record<string, unknown>>();
  const take = (id: string) => {
    const body = checks.get(id);
    checks.delete(id);
    return body;
  };
  return {
    async onRequest({ request, schemaPath, id }) {
      if (isCheck(schemaPath)) checks.set(id, await jsonBody(request));
    },
    async onResponse({ response, id }) {
      const body = take(id);
      if (!body) return undefined;
      // The service could not decide: it failed, or it turned the call away for the rate (429).
      if (response.status >= 500 || response.status === 429) {
        await response.body?.cancel();
        return openAnswer(body, `status ${response.status}`);
      }
      // The answer is read here, while a failure to read it can still be answered locally: a body
      // cut off by the deadline or the connection fails open like a call that got no answer.
      try {
        return (await settle(response)).response;
      } catch (error) {
        const cause = openCause(error);
        if (cause === undefined) throw error;
        return openAnswer(body, cause);
      }
    },
    onError({ error, id }) {
      const body = take(id);
      const cause = openCause(error);
      return body && cause ? openAnswer(body, cause) : undefined;
    },
  };
}

/**
 * Retries 429, 502, 503 and network errors with exponential backoff, on the calls
 * {@link entitlementsRetrySafe} allows unless `isRetrySafe` says otherwise. Pass it as the client's
 * `retry` option, or add it to any openapi-fetch client with `client.use(...)`.
 */
export function retry(options: RetryOptions = {}): Middleware {
  return sharedRetry({ isRetrySafe: entitlementsRetrySafe, ...options });
}
