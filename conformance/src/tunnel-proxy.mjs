// A forward proxy on 127.0.0.1 that opens tunnels (HTTP CONNECT) to the origins it is given only,
// the static site of the run and its webhook receiver, and refuses every other target. With
// `PROXY_SERVER` set (its documented self-hosting option) Firecrawl's fetch engine connects
// through the proxy, and so do the webhook calls of releases that send them with the same
// dispatcher; the proxy decides what is reachable. Here nothing but the site and the receiver is.
import { connect } from "node:net";
import { createServer as createHttpServer } from "node:http";
import { closeServer, listenOnLoopback } from "./processes.mjs";

/** A tunnel idle this long is closed. */
const IDLE_MS = 30_000;
/** Most tunnels open at once. */
const MAX_TUNNELS = 32;

/**
 * Starts the proxy on a free port of 127.0.0.1, tunnelling only to the targets of `allowed`
 * ("127.0.0.1:<port>" each). Resolves with its URL, the tunnels opened and the targets refused, and
 * close().
 */
export async function startTunnelProxy(allowed) {
  const tunnels = [];
  const refused = [];
  const sockets = new Set();
  const server = createHttpServer((req, res) => {
    // Only tunnels: a request in absolute form would be a proxy that reads and forwards HTTP.
    refused.push(`${req.method} ${req.url}`);
    res.writeHead(405, { allow: "CONNECT", connection: "close" }).end();
  });
  server.on("connect", (req, client, head) => {
    sockets.add(client);
    client.once("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    if (!allowed.includes(req.url) || sockets.size > MAX_TUNNELS) {
      refused.push(`CONNECT ${req.url}`);
      client.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n");
      return;
    }
    const [host, port] = [req.url.slice(0, req.url.lastIndexOf(":")), Number(req.url.slice(req.url.lastIndexOf(":") + 1))];
    const upstream = connect({ host, port });
    sockets.add(upstream);
    upstream.once("close", () => {
      sockets.delete(upstream);
      client.destroy();
    });
    client.once("close", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    for (const socket of [client, upstream]) socket.setTimeout(IDLE_MS, () => socket.destroy());
    upstream.once("connect", () => {
      tunnels.push(req.url);
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      client.pipe(upstream);
      upstream.pipe(client);
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  const port = await listenOnLoopback(server);
  const close = () => {
    for (const socket of sockets) socket.destroy();
    return closeServer(server);
  };
  return { url: `http://127.0.0.1:${port}`, tunnels, refused, close };
}
