// The factory every client of this project is built with: an openapi-fetch client on the
// transport of ./request.ts, with the key as a default header, the per-attempt deadline in the
// transport and the middleware the caller opted into. Nothing here knows an API: a client passes
// its name, key hint and base URL. Retry and fail-open live on ./middleware, so an application
// that does not use them does not bundle them.
import createClient, { type Client, type Middleware } from "openapi-fetch";
import { deadline, positive } from "./deadline.js";
import { ClientRequest } from "./request.js";

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
  /** Abort each attempt, retries included, after this many milliseconds with a `TimeoutError`. Off by default. */
  timeoutMs?: number | undefined;
  /** Retries, off by default: pass `retry()` from the client's `./middleware` entry, e.g. `retry({ retries: 3 })`. */
  retry?: Middleware | undefined;
}

/** What a client factory tells {@link createApiClient} about its API. */
export interface ClientFactorySettings {
  /** Named in errors, e.g. `createEntitlementsClient`. */
  clientName: string;
  /** Appended to the missing-key error, e.g. `pass your API key, which starts with fc-`. */
  keyHint: string;
  defaultBaseUrl: string;
  /** Middleware that must see the final outcome of a call, after retries (registered first); an undefined one is left out. */
  outer?: Array<Middleware | undefined>;
}

/** Throws a TypeError naming the client when the API key is missing or blank. */
export function requireApiKey(apiKey: unknown, clientName: string, hint: string): string {
  if (typeof apiKey !== "string" || apiKey.trim() === "") {
    throw new TypeError(`${clientName}: apiKey is required (${hint})`);
  }
  return apiKey;
}

/** Builds an openapi-fetch client with auth, the opt-in deadline and the given middleware. */
export function createApiClient<Paths extends {}>(options: CommonClientOptions, settings: ClientFactorySettings): Client<Paths> {
  const { clientName } = settings;
  const apiKey = requireApiKey(options?.apiKey, clientName, settings.keyHint);
  const { baseUrl = settings.defaultBaseUrl, timeoutMs, fetch: custom } = options;
  // Checked once here, so that no call has to parse its URL before fetch does. "localhost:5511"
  // parses, as a URL of scheme "localhost:": Node's fetch then fails every call and Bun's sends it.
  if (!/^https?:\/\//i.test(baseUrl) || !URL.canParse(baseUrl)) throw new TypeError(`${clientName}: baseUrl must be an http:// or https:// URL, got "${baseUrl}"`);
  if (timeoutMs !== undefined) positive(timeoutMs, "timeoutMs");
  const client = createClient<Paths>({
    baseUrl,
    Request: ClientRequest as unknown as typeof Request,
    // Every attempt goes through here, a retry's too, so each gets a deadline of its own. A custom
    // fetch gets the global Request it is written for.
    fetch: (request: Request) => {
      const init = timeoutMs === undefined ? undefined : { signal: deadline(request, timeoutMs) };
      return custom ? custom(ClientRequest.toRequest(request, init)) : ClientRequest.send(request, init);
    },
    // A default header rather than a middleware: a client without retry or fail-open then runs no
    // middleware at all, which saves openapi-fetch a call id and an options object per call.
    headers: { ...options.headers, Authorization: `Bearer ${apiKey}` },
  });
  // onRequest runs in this order and onResponse/onError in reverse: the outer middleware see the
  // outcome of the retries. openapi-fetch leaves out an undefined one and refuses anything that is
  // not a middleware, such as the `retry: true` of earlier versions.
  client.use(...([...(settings.outer ?? []), options.retry] as Middleware[]));
  return client;
}
