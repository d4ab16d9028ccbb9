import type { Client } from "openapi-fetch";
import { createApiClient, type CommonClientOptions } from "@api-contracts/client-runtime";
import type { paths } from "./generated/webdata.js";

export type * from "./generated/webdata.js";
export { TimeoutError } from "@api-contracts/client-runtime";

/** The live web data service. */
export const WEBDATA_BASE_URL = "https://api.firecrawl.dev";

export type WebdataClientOptions = CommonClientOptions;

export type WebdataClient = Client<paths>;

/**
 * Creates a typed client for the web data API. With `retry` (`retry()` from
 * `@api-contracts/webdata-client/middleware`), a `POST /v2/crawl` is repeated only when it carries
 * an `x-idempotency-key` header.
 *
 * @example
 * const firecrawl = createWebdataClient({ apiKey: process.env.FIRECRAWL_API_KEY });
 * const { data, error } = await firecrawl.POST("/v2/crawl", { body: { url: "https://example.com" } });
 */
export function createWebdataClient(options: WebdataClientOptions): WebdataClient {
  return createApiClient<paths>(options, {
    clientName: "createWebdataClient",
    keyHint: "pass your API key, which starts with fc-",
    defaultBaseUrl: WEBDATA_BASE_URL,
  });
}
