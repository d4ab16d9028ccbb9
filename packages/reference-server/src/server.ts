import type { FastifyInstance } from "fastify";
import type { DeliveryReport } from "@api-contracts/contract-core/server";
import { defaultFixtures, validateFixtures, type Fixtures } from "./fixtures.js";
import { entitlementsApp } from "./entitlements/routes.js";
import { DEFAULT_HTTP_LIMITS, listen, type HttpLimits } from "./http.js";
import { DEFAULT_STATE_LIMITS, type StateLimits } from "./state.js";
import { webdataApp } from "./webdata/routes.js";
import { DEFAULT_WEBHOOK_LIMITS, type WebhookLimits, type WebhookSettings } from "./webhooks.js";

/** Every limit the server enforces on clients; each defaults as the README's limits table says. */
export type ReferenceLimits = HttpLimits & StateLimits & WebhookLimits;

/** What one API's app is built from. */
interface AppParts {
  options: Omit<ReferenceServerOptions, "host" | "port">;
  fixtures: ReturnType<typeof validateFixtures>;
  now: () => number;
  limits: ReferenceLimits;
  webhooks: WebhookSettings;
}

/**
 * The APIs this server implements, by their names in contract-core's registry, each with its
 * largest request body by default and how its app is built: another API adds an entry.
 */
const IMPLEMENTED = {
  entitlements: {
    bodyLimitBytes: 1024 * 1024,
    build({ options, fixtures, now, limits, webhooks }: AppParts): FastifyInstance {
      if ((options.webhookUrl === undefined) !== (options.webhookSecret === undefined)) throw new TypeError("webhookUrl and webhookSecret go together: balance events are sent to the endpoint, signed with its whsec_ secret");
      if (options.webhookUrl !== undefined) checkEndpoint(options.webhookUrl, options.webhookSecret!);
      return entitlementsApp({ fixtures, now, http: limits, state: limits, webhooks: { ...webhooks, url: options.webhookUrl } });
    },
  },
  webdata: {
    bodyLimitBytes: 10 * 1024 * 1024,
    build({ options, fixtures, now, limits, webhooks }: AppParts): FastifyInstance {
      if (options.webhookUrl !== undefined) throw new TypeError("webhookUrl is for entitlements: every crawl names its own webhook");
      const publicUrl = options.publicUrl === undefined ? undefined : httpUrl("publicUrl", options.publicUrl).href.replace(/\/+$/, "");
      return webdataApp({ fixtures, now, http: limits, state: limits, publicUrl, webhooks });
    },
  },
};

/** An API this server implements. */
export type Service = keyof typeof IMPLEMENTED;
export const SERVICES = Object.keys(IMPLEMENTED) as Service[];

/** Largest request body by default, in bytes: 1 MiB for entitlements, 10 MiB for web data. */
export const DEFAULT_BODY_LIMIT_BYTES = Object.fromEntries(SERVICES.map((service) => [service, IMPLEMENTED[service].bodyLimitBytes])) as Record<Service, number>;

export interface ReferenceServerOptions {
  service: Service;
  /** Interface to listen on; default `127.0.0.1`. */
  host?: string;
  /** Port to listen on; default `0` (any free port). */
  port?: number;
  /** The world to serve; default {@link defaultFixtures}. Validated before the server starts. */
  fixtures?: Fixtures;
  /** Clock in milliseconds since the Unix epoch, for lock expiry, resets and key expiry; default `Date.now`. */
  now?: () => number;
  /** Size, time and state limits; each one left out keeps its default. */
  limits?: Partial<ReferenceLimits>;
  /** Base URL of the URLs the Web Data API hands out (a started crawl's `url`); default: the listening address. */
  publicUrl?: string;
  /**
   * The secret webhook calls are signed with. Web data: the team's secret, any string (`X-Firecrawl-Signature`;
   * crawl calls go unsigned without it, as the service sends them when it knows none). Entitlements:
   * the endpoint's Standard Webhooks secret, `whsec_` and a base64 key; required with `webhookUrl`.
   */
  webhookSecret?: string;
  /** Entitlements: the endpoint `balances.limit_reached` calls go to; none are sent without it. */
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

/** The limits of one service: the defaults, overridden by the given ones (each a positive number). */
export function resolveLimits(service: Service, given: Partial<ReferenceLimits> = {}): ReferenceLimits {
  const limits: ReferenceLimits = { bodyLimitBytes: DEFAULT_BODY_LIMIT_BYTES[service], ...DEFAULT_HTTP_LIMITS, ...DEFAULT_STATE_LIMITS, ...DEFAULT_WEBHOOK_LIMITS };
  for (const [name, value] of Object.entries(given)) {
    if (!Object.hasOwn(limits, name)) throw new TypeError(`unknown limit ${name}`);
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value <= 0) throw new TypeError(`limit ${name} must be a positive integer, got ${String(value)}`);
    limits[name as keyof ReferenceLimits] = value;
  }
  return limits;
}

/** The option's URL, which must be an http or https one. */
function httpUrl(option: string, text: string): URL {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url?.protocol !== "http:" && url?.protocol !== "https:") throw new TypeError(`${option} must be an http or https URL, got ${text}`);
  return url;
}

/** An entitlements endpoint: an http(s) URL and a Standard Webhooks secret (`whsec_` and a base64 key, as Svix gives them). */
function checkEndpoint(url: string, secret: string): void {
  httpUrl("webhookUrl", url);
  if (!/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret)) throw new TypeError("webhookSecret must be a Standard Webhooks secret: whsec_ followed by a base64 key");
}

/** Builds the Fastify app of one service without listening (for embedding). */
export function buildReferenceApp(options: Omit<ReferenceServerOptions, "host" | "port">): FastifyInstance {
  const fixtures = validateFixtures(options.fixtures ?? defaultFixtures);
  const now = options.now ?? Date.now;
  const limits = resolveLimits(options.service, options.limits);
  const webhooks = { secret: options.webhookSecret, limits, onReport: options.onWebhookReport };
  const api = Object.hasOwn(IMPLEMENTED, options.service) ? IMPLEMENTED[options.service] : undefined;
  if (!api) throw new Error(`unknown service ${String(options.service)}: expected ${SERVICES.join(" or ")}`);
  return api.build({ options, fixtures, now, limits, webhooks });
}

/** Starts the stateful reference implementation of one API on host:port. */
export async function startReferenceServer(options: ReferenceServerOptions): Promise<ReferenceServer> {
  const app = buildReferenceApp(options);
  return listen(app, options.host ?? "127.0.0.1", options.port ?? 0);
}
