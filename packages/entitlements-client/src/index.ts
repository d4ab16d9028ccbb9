import type { Client, Middleware } from "openapi-fetch";
import type { components, paths } from "./generated/entitlements.js";
import { createApiClient, type CommonClientOptions } from "@api-contracts/client-runtime";

export type * from "./generated/entitlements.js";
export { TimeoutError } from "@api-contracts/client-runtime";

/** The live entitlements service. */
export const ENTITLEMENTS_BASE_URL = "https://api.useautumn.com";

export interface EntitlementsClientOptions extends CommonClientOptions {
  /** Sent as `x-api-version` on every call, e.g. `"2.4.0"`. Omitted when not set. */
  apiVersion?: string | undefined;
  /**
   * Off by default: pass `failOpen()` from `@api-contracts/entitlements-client/middleware`. A check
   * that meets a 5xx or 429 answer, a network error or a timeout (after any retries) is then answered
   * locally with status 202 and `allowed: true`, marked by an `x-fail-open` header naming the cause.
   * Any other error, such as a request fetch refuses to send, reaches the caller.
   */
  failOpen?: Middleware | undefined;
}

export type EntitlementsClient = Client<paths>;

/** The error body every failed call returns: `{ message, code, env }`. */
export type EntitlementsError = components["schemas"]["Error"];

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
      outer: [options?.failOpen],
    },
  );
}
