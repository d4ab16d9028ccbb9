import type { RequestListener, Server } from "node:http";
import { contractOf, getApi, parseHttpUrl } from "@api-contracts/contract-core";
import { listen, type DeliveryReport } from "@api-contracts/contract-core/server";
import { defaultFixtures, validateFixtures, type Fixtures } from "./fixtures.js";
import { entitlementsApi } from "./entitlements/handlers.js";
import { addressUrl, apiListener, apiServer, DEFAULT_HTTP_LIMITS } from "./http.js";
import { DEFAULT_STATE_LIMITS } from "./state.js";
import { webdataApi } from "./webdata/handlers.js";
import type { ApiParts, Implementation, ReferenceLimits } from "./implementation.js";
import { checkWebhookOptions, DEFAULT_WEBHOOK_LIMITS } from "./webhooks.js";

export type { ApiParts, Implementation, ReferenceLimits } from "./implementation.js";

/** The APIs this server implements, by their names in contract-core's registry: another API adds an entry. */
const IMPLEMENTED = { entitlements: entitlementsApi, webdata: webdataApi } satisfies Record<string, (parts: ApiParts) => Implementation>;

/** An API this server implements. */
export type Service = keyof typeof IMPLEMENTED;
export const SERVICES = Object.keys(IMPLEMENTED) as Service[];

export interface ReferenceServerOptions {
  service: Service;
  /** Interface to listen on; default `127.0.0.1`. */
  host?: string;
  /** Port to listen on; default `0` (any free port). */
  port?: number;
  /** The world to serve; default {@link defaultFixtures}. Validated before the server starts. */
  fixtures?: Fixtures;
  /** Clock in milliseconds since the Unix epoch, for lock expiry, resets, key expiry and the spec's time rules; default `Date.now`. */
  now?: () => number;
  /** Size, time and state limits; each one left out keeps its default. */
  limits?: Partial<ReferenceLimits>;
  /** Base URL of the URLs the API hands out (a started crawl's `url`); default: the listening address. */
  publicUrl?: string;
  /**
   * The secret webhook calls are signed with, by the description's `x-webhook-signature`. An API whose
   * requests name their own webhook (web data): the team's secret, any string (calls go unsigned
   * without it, as the service sends them when it knows none). Another API (entitlements): the
   * endpoint's secret (Standard Webhooks: `whsec_` and a base64 key), required with `webhookUrl`.
   */
  webhookSecret?: string;
  /** The endpoint of an API whose requests name no webhook (entitlements: `balances.limit_reached`); none are sent without it. */
  webhookUrl?: string;
  /** Told of the end of every webhook call the server makes (delivered, refused, failed, timed out, dropped, cancelled). */
  onWebhookReport?: (report: DeliveryReport) => void;
}

export interface ReferenceServer {
  /** Base URL, e.g. `http://127.0.0.1:4011`; the API's paths (`/v1/...`, `/v2/...`) hang off it. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** One API's server, built but not listening (for embedding). */
export interface ReferenceApp {
  /** The HTTP server with every limit (deadlines, lingering close, parser refusals in the API's shape); `listen` it yourself. */
  server: Server;
  /** Its request listener, to mount the API in a server of your own (the body limit holds; the deadlines are then your server's). */
  handle: RequestListener;
  /** Closes the server (waiting for requests in flight) and cuts the webhook calls in flight. */
  close(): Promise<void>;
}

/** The limits of one service: the defaults (its body limit from the API's facts), overridden by the given ones (each a positive integer). */
export function resolveLimits(service: Service, given: Partial<ReferenceLimits> = {}): ReferenceLimits {
  const limits: ReferenceLimits = { bodyLimitBytes: getApi(service).limits.bodyBytes, ...DEFAULT_HTTP_LIMITS, ...DEFAULT_STATE_LIMITS, ...DEFAULT_WEBHOOK_LIMITS };
  for (const [name, value] of Object.entries(given)) {
    if (!Object.hasOwn(limits, name)) throw new TypeError(`unknown limit ${name}`);
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value <= 0) throw new TypeError(`limit ${name} must be a positive integer, got ${String(value)}`);
    limits[name as keyof ReferenceLimits] = value;
  }
  return limits;
}

/** The option's base URL, which must be an http or https one, without a trailing slash. */
function baseUrl(text: string): string {
  const url = parseHttpUrl(text);
  if (!url) throw new TypeError(`publicUrl must be an http or https URL, got ${text}`);
  return url.href.replace(/\/+$/, "");
}

/** Builds the server of one service without listening. */
export function buildReferenceApp(options: Omit<ReferenceServerOptions, "host" | "port">): ReferenceApp {
  const service = options.service;
  if (!Object.hasOwn(IMPLEMENTED, service)) throw new TypeError(`unknown service ${String(service)}: this server implements ${SERVICES.join(" and ")}`);
  const fixtures = validateFixtures(options.fixtures ?? defaultFixtures);
  const now = options.now ?? Date.now;
  const limits = resolveLimits(service, options.limits);
  // Servers on the real clock share the registry's contract; another clock judges the spec's time rules by itself.
  const contract = now === Date.now ? contractOf(service) : contractOf(service, { now });
  checkWebhookOptions(contract, options.webhookUrl, options.webhookSecret);
  const publicUrl = options.publicUrl === undefined ? undefined : baseUrl(options.publicUrl);
  const base = (): string => {
    if (publicUrl !== undefined) return publicUrl;
    const address = server.address();
    return typeof address === "object" && address !== null ? addressUrl(address.address, address.port) : "http://localhost";
  };
  const webhooks = { url: options.webhookUrl, secret: options.webhookSecret, limits, onReport: options.onWebhookReport };
  const implementation = IMPLEMENTED[service]({ fixtures, now, limits, webhooks, contract, base });
  const key = fixtures.api_keys[service];
  const api = { contract, acceptsKey: (given: string) => given === key, context: implementation.context, handlers: implementation.handlers };
  const handle = apiListener(api, limits.bodyLimitBytes);
  const server = apiServer(api, handle, limits);
  const close = async (): Promise<void> => {
    // Node closes the idle connections; one with a request in flight ends with its answer.
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await implementation.close();
  };
  return { server, handle, close };
}

/** Starts the stateful reference implementation of one API on host:port. */
export async function startReferenceServer(options: ReferenceServerOptions): Promise<ReferenceServer> {
  const app = buildReferenceApp(options);
  try {
    const { url, port } = await listen(app.server, options.port ?? 0, options.host ?? "127.0.0.1");
    return { url, port, close: app.close };
  } catch (error) {
    await app.close();
    throw error;
  }
}
