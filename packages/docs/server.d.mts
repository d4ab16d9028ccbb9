/** Where the built pages live: the package's dist/ folder. */
export declare const defaultRoot: string;

/** The server's limits (see the README's table); the timeouts are the defaults of the options below. */
export declare const limits: Readonly<{
  maxUrlLength: number;
  maxHeaderSize: number;
  headersTimeout: number;
  requestTimeout: number;
  idleTimeout: number;
  keepAliveTimeout: number;
}>;

/** Maps a request path to a file inside root, or null when it would leave root; throws URIError on bad percent-encoding. */
export declare function resolveInside(root: string, pathname: string): string | null;

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
}

export interface DocsServer {
  /** Base URL, e.g. http://127.0.0.1:4000 */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves the built docs over HTTP. */
export declare function startDocsServer(options?: DocsServerOptions): Promise<DocsServer>;
