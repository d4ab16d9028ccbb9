#!/usr/bin/env node
// A small static file server for the built docs (dist/), used by `npm start` here and at the
// repository root. It serves regular files from inside its root only, and answers everything else
// (hostile or broken requests included) with a short plain-text error.
import { constants } from "node:fs";
import { open, realpath } from "node:fs/promises";
import { createServer, STATUS_CODES } from "node:http";
import path from "node:path";
import { pipeline } from "node:stream";
import { fileURLToPath } from "node:url";

const packageDir = path.dirname(fileURLToPath(import.meta.url));
export const defaultRoot = path.join(packageDir, "dist");

/** The limits in the README's table; tests pass shorter timeouts. */
export const limits = Object.freeze({
  /** Longest request target, in characters; the longest page URL is far shorter. */
  maxUrlLength: 2048,
  /** Request line plus headers, in bytes. */
  maxHeaderSize: 16 * 1024,
  /** Milliseconds from connection (or from the previous answer) until the headers must be complete. */
  headersTimeout: 10_000,
  /** Milliseconds until the whole request must be in. */
  requestTimeout: 30_000,
  /** Milliseconds a connection may make no progress (an idle or stalled reader) before it is closed. */
  idleTimeout: 60_000,
  /** Milliseconds an idle keep-alive connection is kept open. */
  keepAliveTimeout: 5_000,
});

const ALLOW = "GET, HEAD";

/** @type {Record<string, string>} */
const contentTypes = {
  ".html": "text/html; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".yaml": "application/yaml; charset=utf-8",
  ".yml": "application/yaml; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
};

const plainHeaders = { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" };

/**
 * @param {number} status
 * @param {string} [detail]
 */
function plainBody(status, detail) {
  return `${STATUS_CODES[status] ?? "Error"}${detail ? `: ${detail}` : ""}\n`;
}

/**
 * @param {import("node:http").ServerResponse} res
 * @param {number} status
 * @param {{ detail?: string, headers?: Record<string, string>, close?: boolean }} [options]
 */
function sendText(res, status, { detail, headers = {}, close = false } = {}) {
  const body = plainBody(status, detail);
  res.writeHead(status, {
    ...plainHeaders,
    "content-length": String(Buffer.byteLength(body)),
    ...(close ? { connection: "close" } : {}),
    ...headers,
  });
  res.end(body);
}

/**
 * A whole answer written straight to a socket, for requests the HTTP parser refused (they never
 * reach the request handler).
 * @param {import("node:stream").Duplex} socket
 * @param {number} status
 * @param {Record<string, string>} [headers]
 */
function answerOnSocket(socket, status, headers = {}) {
  const body = plainBody(status);
  const lines = Object.entries({ ...plainHeaders, "content-length": String(Buffer.byteLength(body)), connection: "close", ...headers });
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n${body}`);
}

// An HTTP method is a token (RFC 9110); a request that starts with one was a request for a method
// the parser does not know, rather than noise.
const METHOD_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32} /;

/**
 * The status for a request the HTTP parser refused.
 * @param {Error & { code?: string, rawPacket?: Buffer }} error
 * @param {number} maxUrlLength
 */
function parserRefusal(error, maxUrlLength) {
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") return 408;
  const raw = error.rawPacket?.subarray(0, maxUrlLength + 64).toString("latin1") ?? "";
  if (error.code === "HPE_HEADER_OVERFLOW") {
    const requestLineEnd = raw.indexOf("\n");
    return requestLineEnd === -1 || requestLineEnd > maxUrlLength ? 414 : 431;
  }
  if (error.code === "HPE_INVALID_METHOD" && METHOD_TOKEN.test(raw)) return 501;
  return 400;
}

/**
 * The path of a request target: origin-form (`/a?b`) or absolute-form (`http://host/a`); null for
 * anything else (`*`, authority-form). Never decoded here.
 * @param {string} target
 */
function targetPath(target) {
  if (target.startsWith("/")) {
    const query = target.indexOf("?");
    return query === -1 ? target : target.slice(0, query);
  }
  if (!/^https?:\/\//i.test(target)) return null;
  try {
    return new URL(target).pathname;
  } catch {
    return null;
  }
}

/**
 * Maps a request path to a file inside root, or null when it would leave root. Throws URIError
 * on a path that is not valid percent-encoding. Symlinks are checked when the file is opened.
 * @param {string} root absolute
 * @param {string} pathname still percent-encoded
 */
export function resolveInside(root, pathname) {
  const decoded = decodeURIComponent(pathname);
  if (decoded.includes("\0")) return null;
  const relative = decoded.endsWith("/") ? `${decoded}index.html` : decoded;
  const file = path.resolve(root, `.${path.posix.normalize(`/${relative}`)}`);
  return file === root || file.startsWith(root + path.sep) ? file : null;
}

/**
 * @param {string} root real path
 * @param {string} file real path
 */
function isInside(root, file) {
  return file === root || file.startsWith(root + path.sep);
}

/**
 * Opens the regular file a path names (a folder's index.html for a folder), after following its
 * symlinks, only when the real file is inside the real root; null otherwise.
 * @param {string} root absolute
 * @param {string} file absolute, inside root by name
 * @returns {Promise<{ handle: import("node:fs/promises").FileHandle, size: number, name: string } | null>}
 */
async function openInside(root, file) {
  const realRoot = await realpath(root).catch(() => null);
  if (realRoot === null) return null;
  for (const candidate of [file, path.join(file, "index.html")]) {
    const real = await realpath(candidate).catch(() => null);
    if (real === null || !isInside(realRoot, real)) return null;
    // O_NOFOLLOW: a file swapped for a symlink after the check above is refused, not followed.
    const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => null);
    if (handle === null) return null;
    const info = await handle.stat().catch(() => null);
    if (info?.isFile()) return { handle, size: info.size, name: real };
    await handle.close();
    if (!info?.isDirectory()) return null;
  }
  return null;
}

/**
 * @param {import("node:http").IncomingMessage} req
 */
function declaresBody(req) {
  return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
}

/**
 * Answers one request that the HTTP parser accepted.
 * @param {string} absoluteRoot
 * @param {import("node:http").IncomingMessage} req
 * @param {import("node:http").ServerResponse} res
 */
async function serve(absoluteRoot, req, res) {
  // Whatever body the client sends is never read: closing is cheaper than draining it.
  const close = declaresBody(req);
  const target = req.url ?? "/";
  if (target.length > limits.maxUrlLength) {
    sendText(res, 414, { close: true });
    return;
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    sendText(res, 405, { headers: { allow: ALLOW }, close });
    return;
  }
  if (close) {
    sendText(res, 413, { detail: "the docs take no request body", close });
    return;
  }
  const pathname = targetPath(target);
  let file;
  try {
    file = pathname === null ? undefined : resolveInside(absoluteRoot, pathname);
  } catch {
    file = undefined;
  }
  if (file === undefined) {
    sendText(res, 400, { detail: "malformed path" });
    return;
  }
  const opened = file === null ? null : await openInside(absoluteRoot, file);
  if (opened === null) {
    sendText(res, 404);
    return;
  }
  res.writeHead(200, {
    "content-type": contentTypes[path.extname(opened.name).toLowerCase()] ?? "application/octet-stream",
    "content-length": opened.size,
    "cache-control": "no-cache",
    "x-content-type-options": "nosniff",
  });
  if (req.method === "HEAD") {
    await opened.handle.close();
    res.end();
    return;
  }
  // pipeline, not pipe: a reader that goes away must also close the file.
  pipeline(opened.handle.createReadStream(), res, () => {});
}

/**
 * Starts the docs server.
 * @param {{ host?: string, port?: number, root?: string, headersTimeout?: number, requestTimeout?: number, idleTimeout?: number }} [options]
 * @returns {Promise<{ url: string, port: number, close(): Promise<void> }>}
 */
export async function startDocsServer({
  host = "127.0.0.1",
  port = 4000,
  root = defaultRoot,
  requestTimeout = limits.requestTimeout,
  headersTimeout = limits.headersTimeout,
  idleTimeout = limits.idleTimeout,
} = {}) {
  const absoluteRoot = path.resolve(root);
  // Node refuses a header timeout longer than the request timeout.
  const headersLimit = Math.min(headersTimeout, requestTimeout);
  /** Sockets with an answer in progress: an error on them must not write a second answer. */
  const answering = new WeakSet();

  const server = createServer(
    {
      maxHeaderSize: limits.maxHeaderSize,
      headersTimeout: headersLimit,
      requestTimeout,
      keepAliveTimeout: limits.keepAliveTimeout,
      // Node checks both timeouts only this often (30 s unless told).
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(headersLimit / 4))),
      // Files are found by path alone; an answer with Node's own empty 400 would be the only other outcome.
      requireHostHeader: false,
    },
    (req, res) => {
      answering.add(req.socket);
      res.once("close", () => answering.delete(req.socket));
      serve(absoluteRoot, req, res).catch(() => {
        // Not expected; but an unhandled rejection would stop the server for every other reader.
        if (res.headersSent) res.destroy();
        else sendText(res, 500, { close: true });
      });
    },
  );
  server.on("clientError", (/** @type {Error & { code?: string }} */ error, socket) => {
    if (error.code === "ECONNRESET" || !socket.writable || answering.has(socket)) {
      socket.destroy();
      return;
    }
    answerOnSocket(socket, parserRefusal(error, limits.maxUrlLength));
  });
  // With no listener Node drops a CONNECT without a word.
  server.on("connect", (_req, socket) => answerOnSocket(socket, 405, { allow: ALLOW }));
  server.setTimeout(idleTimeout);

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(undefined);
    });
  });
  const address = server.address();
  const boundPort = typeof address === "object" && address ? address.port : port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${boundPort}`,
    port: boundPort,
    close: () =>
      new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = process.env.PORT ? Number(process.env.PORT) : 4000;
  // No top-level await here: it would make `require()` of this module fail (ERR_REQUIRE_ASYNC_MODULE).
  startDocsServer({ port }).then(
    (docs) => {
      console.log(`docs: ${docs.url}`);
      const stop = () => {
        docs.close().then(() => process.exit(0));
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
