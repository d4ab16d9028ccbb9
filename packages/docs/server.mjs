#!/usr/bin/env node
// A small static file server for the built docs (dist/), used by `npm start` here and at the
// repository root. It serves regular files from inside its root only, the docs console's
// configuration, and the console's relay to targets that send no CORS headers; it answers
// everything else (hostile or broken requests included) with a short plain-text error.
import { lookup as dnsLookup } from "node:dns";
import { constants, readFileSync } from "node:fs";
import { open, realpath } from "node:fs/promises";
import { request as httpRequest, STATUS_CODES } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP } from "node:net";
import path from "node:path";
import { pipeline } from "node:stream";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { endToEnd, originForm, parseHttpUrl, parseUrl, pathOf } from "@api-contracts/contract-core";
import { createEdgeServer, listen, onStopRequest, readBody } from "@api-contracts/contract-core/server";
import { registryPages } from "./src/served-pages.mjs";

const packageDir = path.dirname(fileURLToPath(import.meta.url));
export const defaultRoot = path.join(packageDir, "dist");

/** The limits in the README's table, each described in server.d.mts; tests pass shorter timeouts. */
export const limits = Object.freeze({
  maxUrlLength: 2048,
  maxHeaderSize: 16 * 1024,
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  idleTimeout: 60_000,
  keepAliveTimeout: 5_000,
  relayRequestBody: 1024 * 1024,
  relayResponseBody: 8 * 1024 * 1024,
  relayTimeout: 30_000,
  relayConcurrency: 16,
  relayDiscard: 8 * 1024 * 1024,
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
  const form = originForm(target);
  return form === undefined ? null : pathOf(form);
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
  return isInside(root, file) ? file : null;
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
 * Answers one request for a file that the HTTP parser accepted.
 * @param {{ root: string, rewrite: ((text: string) => string) | null, made: Map<string, () => Buffer> | null }} site the
 *   absolute root, what changes the text of the pages, descriptions and landing page on their way out,
 *   and the files made for registered APIs the root has no page for
 * @param {import("node:http").IncomingMessage} req
 * @param {import("node:http").ServerResponse} res
 */
async function serve({ root: absoluteRoot, rewrite, made }, req, res) {
  // Whatever body the client sends is never read: the answer closes the connection.
  const close = declaresBody(req);
  const target = req.url ?? "/";
  if (req.method !== "GET" && req.method !== "HEAD") return sendText(res, 405, { headers: { allow: ALLOW }, close });
  if (close) return sendText(res, 413, { detail: "the docs take no request body", close });
  const pathname = targetPath(target);
  let file;
  try {
    file = pathname === null ? undefined : resolveInside(absoluteRoot, pathname);
  } catch {
    file = undefined;
  }
  if (file === undefined) return sendText(res, 400, { detail: "malformed path" });
  const make = file === null ? undefined : made?.get(path.relative(absoluteRoot, file));
  const opened = file === null || make ? null : await openInside(absoluteRoot, file);
  if (!make && opened === null) return sendText(res, 404);
  const extension = path.extname(opened?.name ?? /** @type {string} */ (file)).toLowerCase();
  /** @type {Buffer | null} */
  let whole = make ? make() : null;
  if (rewrite !== null && REWRITTEN_EXTENSIONS.has(extension)) {
    try {
      whole = Buffer.from(rewrite(whole?.toString("utf8") ?? (await /** @type {NonNullable<typeof opened>} */ (opened).handle.readFile("utf8"))));
    } finally {
      await opened?.handle.close();
    }
  }
  res.writeHead(200, {
    "content-type": contentTypes[extension] ?? "application/octet-stream",
    "content-length": whole?.length ?? opened?.size,
    "cache-control": "no-cache",
    "x-content-type-options": "nosniff",
  });
  // A file read whole is already closed (closing again does nothing); one made has none.
  if (whole !== null || req.method === "HEAD") {
    await opened?.handle.close();
    return void res.end(req.method === "HEAD" ? undefined : whole);
  }
  // pipeline, not pipe: a reader that goes away must also close the file.
  pipeline(/** @type {NonNullable<typeof opened>} */ (opened).handle.createReadStream(), res, () => {});
}

// ---------------------------------------------------------------------------------------------
// The relay: the docs console's requests to a target that sends no CORS headers go through here.

const RELAY_PREFIX = "/_relay";
const CONSOLE_CONFIG = "/_console/config.json";

const loopback = new BlockList();
loopback.addSubnet("127.0.0.0", 8, "ipv4");
loopback.addAddress("::1", "ipv6");

/**
 * @param {string} address an IP address, IPv6 without brackets
 */
function isLoopbackAddress(address) {
  const family = isIP(address);
  return family !== 0 && loopback.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** @param {string} hostname as `URL` gives it: IPv6 in brackets */
const bareHost = (hostname) => hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();

// The browser's request to the docs is not the request to the target: its cookies, origin and
// fetch metadata belong to the docs page, and the body is sent with a length of the relay's own.
// (Hop-by-hop headers and those `Connection` names are contract-core's `endToEnd` to drop.)
const NOT_RELAYED_IN_REQUESTS = new Set(["host", "origin", "referer", "cookie", "content-length", "expect"]);
const NOT_RELAYED_PREFIXES = /^(x-relay-|sec-fetch-)/;
// A target's cookie would be set on the docs' origin. (A Location would be followed by the browser
// itself, to the docs' origin or past the relay: it comes back renamed.)
const NOT_RELAYED_IN_ANSWERS = new Set(["set-cookie"]);

/**
 * The relay's own failures: a code for `X-Relay-Error`, a status, and a sentence that names no part
 * of the request (a key, a target's credentials) so that none is ever echoed.
 * @typedef {"forbidden-origin" | "forbidden-host" | "bad-target" | "too-large" | "timeout" | "unreachable" | "closed" | "busy"} RelayErrorCode
 */

/**
 * Answers with the relay's own failure, then reads and drops what is left of the request's body, so
 * that its client (a browser still sending) reads the refusal instead of a reset; past
 * `limits.relayDiscard` bytes the connection is cut.
 * @param {import("node:http").IncomingMessage} req
 * @param {import("node:http").ServerResponse} res
 * @param {RelayErrorCode} code
 * @param {number} status
 * @param {string} sentence
 * @param {Record<string, string>} [headers]
 */
function relayRefusal(req, res, code, status, sentence, headers = {}) {
  if (!res.headersSent && !res.destroyed) {
    const body = JSON.stringify({ relayError: sentence });
    res.writeHead(status, {
      "content-type": "application/json; charset=utf-8",
      "content-length": String(Buffer.byteLength(body)),
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "x-relay-error": code,
      ...headers,
    });
    res.end(body);
  }
  if (req.complete) return;
  let dropped = 0;
  req.on("data", (/** @type {Buffer} */ chunk) => {
    dropped += chunk.length;
    if (dropped > limits.relayDiscard) req.socket.destroy();
  });
  // A body read up to its limit is left paused.
  req.resume();
}

/**
 * Whether a request comes from a page this server served (or from a program, which sends neither
 * `Origin` nor `Sec-Fetch-Site`, and could reach the target itself). A page on another origin can
 * send no `X-Relay-Target` without a CORS preflight, which the relay never grants; these checks
 * refuse it even where a browser would skip one.
 * @param {import("node:http").IncomingMessage} req
 */
function isSameOriginCaller(req) {
  const host = req.headers.host;
  // `Host` must be one that can only be this machine's name for the docs: an IP literal or
  // `localhost`. A page on another site can point a name of its own at 127.0.0.1 (DNS rebinding)
  // and would then count as same-origin; it cannot send such a Host.
  const name = bareHost((host && parseUrl(`http://${host}`)?.hostname) || "");
  if (name !== "localhost" && isIP(name) === 0) return false;
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin") return false;
  const origin = req.headers.origin;
  return origin === undefined || origin.toLowerCase() === `http://${host?.toLowerCase()}`;
}

/**
 * The address to connect to for a target's host: the host itself when it is an IP address, else
 * the first address its name resolves to; for a host not explicitly allowed, only a loopback
 * address will do. The connection is made to this address (the name goes only into `Host` and
 * TLS), so a name cannot resolve to loopback for the check and elsewhere for the connection, and
 * no runtime's own resolution is trusted with the rule.
 * @param {string} host without brackets
 * @param {boolean} explicitlyAllowed
 * @param {import("./server.d.mts").RelayLookup} lookup
 * @returns {Promise<{ address: string } | { refusal: "forbidden-host" | "unreachable", code?: string }>}
 */
function addressFor(host, explicitlyAllowed, lookup) {
  const acceptable = (/** @type {string} */ address) => explicitlyAllowed || isLoopbackAddress(address);
  if (isIP(host) !== 0) return Promise.resolve(acceptable(host) ? { address: host } : { refusal: "forbidden-host" });
  return new Promise((resolve) => {
    lookup(host, { all: true }, (error, addresses) => {
      if (error) return resolve({ refusal: "unreachable", code: error.code });
      const usable = addresses.find((entry) => acceptable(entry.address));
      resolve(usable ? { address: usable.address } : { refusal: "forbidden-host" });
    });
  });
}

/**
 * The relay's handler: `<METHOD> /_relay<path>?<query>` with `X-Relay-Target: <base URL>` is sent
 * to `<base URL><path>?<query>`, and the target's answer comes back with `X-Relay: 1`.
 * @param {{ allowRelayHosts: readonly string[], lookup: import("./server.d.mts").RelayLookup, timeout: number, concurrency: number }} options
 */
function createRelay({ allowRelayHosts, lookup, timeout, concurrency }) {
  const allowed = new Set(allowRelayHosts.map((host) => bareHost(host)));
  let inFlight = 0;

  /**
   * @param {import("node:http").IncomingMessage} req
   * @param {import("node:http").ServerResponse} res
   * @param {string} rest what follows `/_relay` in the request target: "", "/path" or "?query" and more
   */
  async function relay(req, res, rest) {
    /** @type {(code: RelayErrorCode, status: number, sentence: string, headers?: Record<string, string>) => void} */
    const refuse = (...refusal) => relayRefusal(req, res, ...refusal);
    if (!isSameOriginCaller(req)) {
      return refuse("forbidden-origin", 403, "Only the pages this docs server serves may use its relay.");
    }
    const header = req.headers["x-relay-target"];
    const target = typeof header === "string" ? parseHttpUrl(header) : undefined;
    if (!target || target.username || target.password || target.search || target.hash) {
      return refuse("bad-target", 400, "X-Relay-Target must be an http or https base URL without credentials, query or fragment.");
    }
    if (inFlight >= concurrency) {
      return refuse("busy", 503, `The relay already carries ${concurrency} requests; try again when one ends.`, { "retry-after": "1" });
    }
    if (Number(req.headers["content-length"] ?? 0) > limits.relayRequestBody) {
      return refuse("too-large", 413, `The request body is larger than the relay forwards (${limits.relayRequestBody} bytes).`);
    }
    inFlight++;
    try {
      const host = bareHost(target.hostname);
      /** @type {NodeJS.Timeout | undefined} */
      let clock;
      const resolved = await Promise.race([
        addressFor(host, allowed.has(host), lookup),
        new Promise((resolve) => (clock = setTimeout(resolve, timeout, /** @type {const} */ ({ refusal: "timeout" })))),
      ]).finally(() => clearTimeout(clock));
      if ("refusal" in resolved) {
        if (resolved.refusal === "forbidden-host") {
          return refuse("forbidden-host", 403, "The relay sends only to this machine (loopback addresses); allow another host with --allow-relay-host.");
        }
        if (resolved.refusal === "timeout") return refuse("timeout", 504, `The target's name was not resolved within ${timeout} ms.`);
        return refuse("unreachable", 502, `The target's name could not be resolved${errorCode(resolved.code)}.`);
      }
      const body = await readBody(req, limits.relayRequestBody).catch(() => null);
      // A caller that went away has no one to answer.
      if (body === null) return;
      if (body === undefined) {
        return refuse("too-large", 413, `The request body is larger than the relay forwards (${limits.relayRequestBody} bytes).`);
      }
      const answer = await send(req, { target, address: resolved.address, rest, body, timeout }, res);
      if (res.destroyed) return;
      if ("refusal" in answer) return refuse(...answer.refusal);
      // An answer that has no body keeps the target's Content-Length (a HEAD's names the GET's body).
      const bodiless = req.method === "HEAD" || answer.status === 204 || answer.status === 304;
      const headers = bodiless ? answer.headers : endToEnd(answer.headers, new Set(["content-length"]));
      res.writeHead(answer.status, [
        // Names stand at the even places.
        ...headers.map((item, i) => (i % 2 === 0 && item.toLowerCase() === "location" ? "x-relay-location" : item)),
        ...(bodiless ? [] : ["content-length", String(answer.body.length)]),
        "x-relay", "1",
        "vary", "X-Relay-Target",
      ]);
      res.end(bodiless ? undefined : answer.body);
    } finally {
      inFlight--;
    }
  }

  return relay;
}

/**
 * A system error's code for a sentence (` (ECONNREFUSED)`), or nothing when there is none.
 * @param {string | undefined} code
 */
const errorCode = (code) => (typeof code === "string" && /^[A-Z_]{2,40}$/.test(code) ? ` (${code})` : "");

/**
 * Sends one request to the target and reads its answer whole, within the relay's bounds.
 * @param {import("node:http").IncomingMessage} req
 * @param {{ target: URL, address: string, rest: string, body: Buffer, timeout: number }} exchange
 * @param {import("node:http").ServerResponse} res the caller's answer: when it goes away, so does the request
 * @returns {Promise<{ status: number, headers: string[], body: Buffer } | { refusal: [RelayErrorCode, number, string] }>}
 */
function send(req, { target, address, rest, body, timeout }, res) {
  const basePath = target.pathname.replace(/\/+$/, "");
  // Every name a request's headers have is a key of req.headers.
  const dropped = new Set([...NOT_RELAYED_IN_REQUESTS, ...Object.keys(req.headers).filter((name) => NOT_RELAYED_PREFIXES.test(name))]);
  // Given as a list, the headers keep their order and case; Node then adds no Host of its own.
  const headers = ["host", target.host, ...endToEnd(req.rawHeaders, dropped)];
  if (body.length > 0) headers.push("content-length", String(body.length));
  return new Promise((resolve) => {
    let timedOut = false;
    let upstream;
    try {
      upstream = (target.protocol === "https:" ? httpsRequest : httpRequest)({
        protocol: target.protocol,
        hostname: address,
        // The certificate is checked against the name, and the name is what SNI sends.
        servername: isIP(bareHost(target.hostname)) === 0 ? bareHost(target.hostname) : undefined,
        port: target.port || undefined,
        method: req.method,
        path: `${basePath}${rest.startsWith("?") ? "/" : ""}${rest}` || "/",
        headers,
        agent: false,
      });
    } catch {
      // Node refuses a path or header value it cannot send (ERR_UNESCAPED_CHARACTERS, ERR_INVALID_CHAR).
      return resolve({ refusal: ["bad-target", 400, "The request cannot be sent to the target as it is."] });
    }
    const clock = setTimeout(() => {
      timedOut = true;
      upstream.destroy();
    }, timeout);
    const stop = () => upstream.destroy();
    res.once("close", stop);
    /** @param {Parameters<typeof resolve>[0]} outcome */
    const finish = (outcome) => {
      clearTimeout(clock);
      res.off("close", stop);
      resolve(outcome);
    };
    let answering = false;
    const failed = (/** @type {Error & { code?: string }} */ error) => {
      if (timedOut) return finish({ refusal: ["timeout", 504, `The target did not answer within ${timeout} ms.`] });
      if (answering) return finish({ refusal: ["closed", 502, "The target closed the connection in the middle of its answer."] });
      // A reset connection was made first: the target took it, then dropped it (its fault, or an injected `reset`).
      if (error.code === "ECONNRESET" || error.code === "EPIPE") return finish({ refusal: ["closed", 502, `The target closed the connection without answering${errorCode(error.code)}.`] });
      finish({ refusal: ["unreachable", 502, `The target could not be reached${errorCode(error.code)}.`] });
    };
    upstream.on("error", failed);
    upstream.on("response", (answer) => {
      answering = true;
      answer.on("error", () => {});
      readBody(answer, limits.relayResponseBody).then(
        (read) => {
          if (read !== undefined) return finish({ status: answer.statusCode ?? 502, headers: endToEnd(answer.rawHeaders, NOT_RELAYED_IN_ANSWERS), body: read });
          finish({ refusal: ["too-large", 502, `The target's answer is larger than the relay brings back (${limits.relayResponseBody} bytes).`] });
          upstream.destroy();
        },
        // A target that goes away (or is cut off by the clock) in the middle of its body.
        failed,
      );
    });
    upstream.end(body.length > 0 ? body : undefined);
  });
}

// ---------------------------------------------------------------------------------------------
// The pages follow the ports: the built pages list each API's local server at its registry port,
// and the servers actually running may listen elsewhere.

/** The files whose text names the local servers: the pages, the landing page and the descriptions. */
const REWRITTEN_EXTENSIONS = new Set([".html", ".json", ".yaml", ".yml"]);

/**
 * The origins the built description of each API names for a server on this machine (read from
 * `<root>/<api>.openapi.json`, the file the pages were built from or made from), each mapped to the
 * origin of the server running for that API; null when nothing differs.
 * @param {string} root
 * @param {Record<string, import("./server.d.mts").ConsoleTarget>} targets
 * @param {Map<string, () => Buffer> | null} made
 * @returns {((text: string) => string) | null}
 */
function serverRewrite(root, targets, made) {
  /** @type {Map<string, string>} */
  const moved = new Map();
  for (const [name, target] of Object.entries(targets)) {
    const running = parseUrl(target.mock ?? target.reference ?? "");
    const file = `${name}.openapi.json`;
    let document;
    try {
      document = JSON.parse((made?.get(file)?.() ?? readFileSync(path.join(root, file))).toString("utf8"));
    } catch {
      continue;
    }
    for (const server of running && Array.isArray(document?.servers) ? document.servers : []) {
      const documented = parseUrl(String(server?.url));
      if (!documented || !running) continue;
      const local = bareHost(documented.hostname) === "localhost" || isLoopbackAddress(bareHost(documented.hostname));
      if (local && documented.origin !== running.origin) moved.set(documented.origin, running.origin);
    }
  }
  if (moved.size === 0) return null;
  // Origins end where a port's digits do: :4010 must not match inside :40100.
  const pattern = new RegExp(`(?:${[...moved.keys()].map((origin) => origin.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})(?![0-9])`, "g");
  return (text) => text.replace(pattern, (origin) => moved.get(origin) ?? origin);
}

/**
 * Starts the docs server.
 * @param {import("./server.d.mts").DocsServerOptions} [options]
 * @returns {Promise<{ url: string, port: number, close(): Promise<void> }>}
 */
export async function startDocsServer({
  host = "127.0.0.1",
  port = 4000,
  root = defaultRoot,
  requestTimeout = limits.requestTimeout,
  headersTimeout = limits.headersTimeout,
  idleTimeout = limits.idleTimeout,
  targets,
  allowRelayHosts = [],
  relayTimeout = limits.relayTimeout,
  relayConcurrency = limits.relayConcurrency,
  lookup = dnsLookup,
} = {}) {
  const absoluteRoot = path.resolve(root);
  // Pages for registered APIs the build did not see (CONTRACT_API_DIRS), made when first asked for.
  const made = registryPages(absoluteRoot);
  const site = { root: absoluteRoot, rewrite: targets ? serverRewrite(absoluteRoot, targets, made) : null, made };
  // `/_console/config.json`: where the console sends its requests, and the servers running for each API.
  const config = Buffer.from(`${JSON.stringify({ relay: RELAY_PREFIX, ...(targets ? { targets } : {}) })}\n`);
  const relay = createRelay({ allowRelayHosts, lookup, timeout: relayTimeout, concurrency: relayConcurrency });
  /** Sockets with an answer in progress: an error on them must not write a second answer. */
  const answering = new WeakSet();

  /**
   * @param {import("node:http").IncomingMessage} req
   * @param {import("node:http").ServerResponse} res
   */
  async function route(req, res) {
    const target = req.url ?? "/";
    if (target.length > limits.maxUrlLength) return sendText(res, 414, { close: true });
    // What follows `/_relay` ("", "/path…" or "?query…"; `/_relayed` is a file's path).
    const rest = target.slice(RELAY_PREFIX.length);
    if (target.startsWith(RELAY_PREFIX) && /^([/?]|$)/.test(rest)) return relay(req, res, rest);
    if (targetPath(target) === CONSOLE_CONFIG && (req.method === "GET" || req.method === "HEAD") && !declaresBody(req)) {
      res.writeHead(200, { "content-type": contentTypes[".json"], "content-length": config.length, "cache-control": "no-store", "x-content-type-options": "nosniff" });
      return void res.end(req.method === "HEAD" ? undefined : config);
    }
    return serve(site, req, res);
  }

  const server = createEdgeServer(
    {
      requestTimeoutMs: requestTimeout,
      headersTimeoutMs: headersTimeout,
      keepAliveTimeoutMs: limits.keepAliveTimeout,
      idleTimeoutMs: idleTimeout,
      // Files are found by path alone; an answer with Node's own empty 400 would be the only other outcome.
      node: { maxHeaderSize: limits.maxHeaderSize, requireHostHeader: false },
    },
    (req, res) => {
      answering.add(req.socket);
      res.once("close", () => answering.delete(req.socket));
      route(req, res).catch(() => {
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
  const { port: boundPort } = await listen(server, port, host);
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
  // node server.mjs [--allow-relay-host <host>]...   (DOCS_PORT sets the port, default 4000, as at the root)
  const { values } = parseArgs({ options: { "allow-relay-host": { type: "string", multiple: true, default: [] } } });
  const port = process.env.DOCS_PORT ? Number(process.env.DOCS_PORT) : 4000;
  // No top-level await here: it would make `require()` of this module fail (ERR_REQUIRE_ASYNC_MODULE).
  startDocsServer({ port, allowRelayHosts: values["allow-relay-host"] }).then(
    (docs) => {
      console.log(`docs: ${docs.url}`);
      onStopRequest(() => void docs.close().then(() => process.exit(0)));
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
