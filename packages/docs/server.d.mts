/** Where the built pages live: the package's dist/ folder. */
export declare const defaultRoot: string;

/** The server's limits (see the README's tables); the timeouts and the relay's concurrency are the defaults of the options below. */
export declare const limits: Readonly<{
  /** Longest request target, in characters (2048); the longest page URL is far shorter. */
  maxUrlLength: number;
  /** Request line plus headers, in bytes (16 KiB). */
  maxHeaderSize: number;
  /** Milliseconds from connection (or from the previous answer) until the headers must be complete (10 000). */
  headersTimeout: number;
  /** Milliseconds until the whole request must be in (30 000). */
  requestTimeout: number;
  /** Milliseconds a connection may make no progress (an idle or stalled reader) before it is closed (60 000). */
  idleTimeout: number;
  /** Milliseconds an idle keep-alive connection is kept open (5 000). */
  keepAliveTimeout: number;
  /** Largest request body the relay forwards (1 MiB). */
  relayRequestBody: number;
  /** Largest answer body the relay brings back (8 MiB). */
  relayResponseBody: number;
  /** Milliseconds a relayed exchange may take (30 000). */
  relayTimeout: number;
  /** Relayed exchanges in flight at once (16). */
  relayConcurrency: number;
  /** Bytes of a refused request's body read and dropped (so that its client reads the refusal) before the connection is cut (8 MiB). */
  relayDiscard: number;
}>;

/** Maps a request path to a file inside root, or null when it would leave root; throws URIError on bad percent-encoding. */
export declare function resolveInside(root: string, pathname: string): string | null;

/** Resolves a name to its addresses, as `dns.lookup(name, { all: true }, callback)` of `node:dns` does. */
export type RelayLookup = (
  hostname: string,
  options: { all: true },
  callback: (error: (Error & { code?: string }) | null, addresses: ReadonlyArray<{ address: string; family: number }>) => void,
) => void;

/** A server running for one API, as `/_console/config.json` lists it: the mock's URL, or the reference implementation's. */
export interface ConsoleTarget {
  mock?: string;
  reference?: string;
}

export interface DocsServerOptions {
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Port to listen on; 0 picks a free one. Default 4000. */
  port?: number;
  /** Folder to serve. Default the package's dist/. */
  root?: string;
  /** Milliseconds until a request's headers must be complete (408 after). Default 10 000. */
  headersTimeout?: number;
  /** Milliseconds until a whole request must be in (408 after). Default 30 000. */
  requestTimeout?: number;
  /** Milliseconds a connection may make no progress before it is closed. Default 60 000. */
  idleTimeout?: number;
  /**
   * The servers running for each API, by the registry's API name: listed by `/_console/config.json`
   * (the consoles offer these and no others), and the served pages, landing page and descriptions name
   * them instead of the local server the build wrote (`http://127.0.0.1:<registry port>`). Without it,
   * `config.json` has no `targets` and the pages are served as built.
   */
  targets?: Record<string, ConsoleTarget>;
  /** Hosts (names or IP addresses) the relay may send to besides this machine's loopback addresses. Default none. */
  allowRelayHosts?: readonly string[];
  /** Milliseconds a relayed exchange may take, from sending it to the answer's last byte (504 after). Default 30 000. */
  relayTimeout?: number;
  /** Relayed exchanges in flight at once; more are refused with 503. Default 16. */
  relayConcurrency?: number;
  /** How the relay resolves a target's name (default `node:dns` `lookup`); a name not allowed by `allowRelayHosts` must resolve to a loopback address. */
  lookup?: RelayLookup;
}

export interface DocsServer {
  /** Base URL, e.g. http://127.0.0.1:4000 */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves the built docs over HTTP (and pages it makes for registered APIs the build did not see), the
 * console's configuration, and the console's relay.
 */
export declare function startDocsServer(options?: DocsServerOptions): Promise<DocsServer>;
