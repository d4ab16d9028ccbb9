import type { FastifyInstance } from "fastify";
import { defaultFixtures, validateFixtures, type Fixtures } from "./fixtures.js";
import { entitlementsApp } from "./entitlements/routes.js";
import { listen } from "./http.js";
import { webdataApp } from "./webdata/routes.js";

export type Service = "entitlements" | "webdata";

export interface ReferenceServerOptions {
  service: Service;
  /** Interface to listen on; default `127.0.0.1`. */
  host?: string;
  /** Port to listen on; default `0` (any free port). */
  port?: number;
  /** The world to serve; default {@link defaultFixtures}. Validated before the server starts. */
  fixtures?: Fixtures;
  /** Clock in milliseconds since the Unix epoch, for lock expiry and resets; default `Date.now`. */
  now?: () => number;
}

export interface ReferenceServer {
  /** Base URL, e.g. `http://127.0.0.1:4011`; the API's paths (`/v1/...`, `/v2/...`) hang off it. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Builds the Fastify app of one service without listening (for embedding). */
export function buildReferenceApp(options: Omit<ReferenceServerOptions, "host" | "port">): FastifyInstance {
  const fixtures = validateFixtures(options.fixtures ?? defaultFixtures);
  const now = options.now ?? Date.now;
  if (options.service === "entitlements") return entitlementsApp({ fixtures, now }).app;
  if (options.service === "webdata") return webdataApp({ fixtures, now }).app;
  throw new Error(`unknown service ${String(options.service)}: expected entitlements or webdata`);
}

/** Starts the stateful reference implementation of one API on host:port. */
export async function startReferenceServer(options: ReferenceServerOptions): Promise<ReferenceServer> {
  const app = buildReferenceApp(options);
  return listen(app, options.host ?? "127.0.0.1", options.port ?? 0);
}
