import type { Client, Middleware } from "openapi-fetch";
import type { components, paths } from "./generated/entitlements.js";
import { createApiClient, idempotentOrKeyed, isNetworkError, isTimeoutError, settle, type CommonClientOptions, type RetrySafety } from "@api-contracts/client-runtime";

export type * from "./generated/entitlements.js";
export { TimeoutError, type RetryEvent, type RetryOptions } from "@api-contracts/client-runtime";

/** The live entitlements service. */
export const ENTITLEMENTS_BASE_URL = "https://api.useautumn.com";

export interface EntitlementsClientOptions extends CommonClientOptions {
  /** Sent as `x-api-version` on every call, e.g. `"2.4.0"`. Omitted when not set. */
  apiVersion?: string | undefined;
  /**
   * When a check meets a 5xx answer or a network error (after any retries), answer it locally with
   * status 202 and `allowed: true`, marked by an `x-fail-open` header naming the cause.
   */
  failOpen?: boolean | undefined;
}

export type EntitlementsClient = Client<paths>;

/** The error body every failed call returns: `{ message, code, env }`. */
export type EntitlementsError = components["schemas"]["Error"];

type CheckAnswer = components["schemas"]["CheckResponse"];

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
  const answer: CheckAnswer = { allowed: true, customer_id: String(request.customer_id ?? ""), balance: null, flag: null };
  if (typeof request.entity_id === "string") answer.entity_id = request.entity_id;
  if (typeof request.required_balance === "number") answer.required_balance = request.required_balance;
  return Response.json(answer, { status: 202, headers: { "x-fail-open": cause } });
}

/** Why a check may be answered locally after this error: a timeout or a network error; otherwise undefined. */
function openCause(error: unknown): string | undefined {
  // A deadline's TimeoutError, or the platform's DOMException of a caller's own timeout signal.
  return isTimeoutError(error) ? "timeout" : isNetworkError(error) ? "network error" : undefined;
}

/** Answers a check with `allowed: true` (status 202, header `x-fail-open`) when the service is down. */
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
      if (response.status >= 500) {
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
 * Creates a typed client for the entitlements API.
 *
 * @example
 * const autumn = createEntitlementsClient({ apiKey: process.env.AUTUMN_SECRET_KEY });
 * const { data, error } = await autumn.POST("/v1/balances.check", { body: { customer_id: "cus_1", feature_id: "messages" } });
 */
export function createEntitlementsClient(options: EntitlementsClientOptions): EntitlementsClient {
  const headers = options?.apiVersion ? { ...options.headers, "x-api-version": options.apiVersion } : options?.headers;
  return createApiClient<paths>(
    { ...options, headers },
    {
      clientName: "createEntitlementsClient",
      keyHint: "pass your secret key, which starts with am_sk_",
      defaultBaseUrl: ENTITLEMENTS_BASE_URL,
      isRetrySafe: entitlementsRetrySafe,
      outer: options?.failOpen ? [failOpen()] : [],
    },
  );
}
