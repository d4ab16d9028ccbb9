/** Where the built pages live: the package's dist/ folder. */
export declare const defaultRoot: string;

/** Maps a request path to a file inside root, or null when it would leave root. */
export declare function resolveInside(root: string, pathname: string): string | null;

export interface DocsServerOptions {
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Port to listen on; 0 picks a free one. Default 4000. */
  port?: number;
  /** Folder to serve. Default the package's dist/. */
  root?: string;
}

export interface DocsServer {
  /** Base URL, e.g. http://127.0.0.1:4000 */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves the built docs over HTTP. */
export declare function startDocsServer(options?: DocsServerOptions): Promise<DocsServer>;
