// A webhook receiver on 127.0.0.1: keeps every delivery as it arrived (path, headers, the body's
// exact text) and answers 200. Bounded: a body over MAX_DELIVERY_BYTES is refused with 413, and
// after MAX_DELIVERIES the receiver answers 503 and keeps nothing more.
import { createServer } from "node:http";
import { readUpTo } from "@api-contracts/contract-core/server";
import { closeServer, listenOnLoopback } from "./processes.mjs";

export const MAX_DELIVERY_BYTES = 1024 * 1024;
const MAX_DELIVERIES = 200;

/** Starts the receiver on a free port of 127.0.0.1. Resolves with its origin, the deliveries so far, waitFor() and close(). */
export async function startWebhookReceiver() {
  const deliveries = [];
  const waiting = new Set();
  const server = createServer((req, res) =>
    readUpTo(req, MAX_DELIVERY_BYTES, {
      overflow: () => {
        res.writeHead(413, { connection: "close" }).end();
        req.destroy();
      },
      end: (body) => {
        if (deliveries.length >= MAX_DELIVERIES) return void res.writeHead(503).end();
        const { host: _host, ...headers } = req.headers;
        deliveries.push({ receivedAt: Date.now(), method: req.method, path: req.url, headers, rawBody: body.toString("utf8") });
        res.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
        for (const waiter of waiting) waiter();
      },
    }),
  );
  server.requestTimeout = 15_000;
  server.headersTimeout = 10_000;
  /** Resolves once `done(deliveries)` holds, or with false after `timeoutMs`. */
  const waitFor = (done, timeoutMs) =>
    new Promise((resolve) => {
      const finish = (value) => {
        clearTimeout(timer);
        waiting.delete(check);
        resolve(value);
      };
      const check = () => {
        if (done(deliveries)) finish(true);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      waiting.add(check);
      check();
    });
  const port = await listenOnLoopback(server);
  return { origin: `http://127.0.0.1:${port}`, deliveries, waitFor, close: () => closeServer(server) };
}
