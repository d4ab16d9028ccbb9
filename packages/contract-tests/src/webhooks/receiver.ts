import type { IncomingHttpHeaders } from "node:http";
import { originForm, pathOf } from "@api-contracts/contract-core";
import { createEdgeServer, listen, readUpTo } from "@api-contracts/contract-core/server";

/** One call the target made to the receiver, as it arrived. */
export interface ReceivedCall {
  /** When it arrived (its whole body read), in milliseconds since the receiver started. */
  at: number;
  method: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as received (UTF-8). */
  body: string;
  /** The event it is: its body's `type`, when the body is JSON that names one. Read once, as it arrives. */
  type: string | undefined;
}

interface ReceiverLimits {
  /** Largest body kept; a longer one is answered 413 and counted as refused. */
  maxBodyBytes: number;
  /** Calls kept per path; more are answered 503 and counted as refused. */
  maxCallsPerPath: number;
  /** Paths calls are kept for; a call to another path (its query aside) is answered 404 and counted as stray. */
  maxPaths: number;
}

export const DEFAULT_RECEIVER_LIMITS: ReceiverLimits = { maxBodyBytes: 1_048_576, maxCallsPerPath: 100, maxPaths: 16 };

/** A local receiver of webhook calls: answers each at once with 200 and keeps it, bounded. */
export type DeliveryReceiver = Awaited<ReturnType<typeof startDeliveryReceiver>>;

/** Starts a receiver on `host:port` (port 0 picks a free one). */
export async function startDeliveryReceiver(host: string, port: number, limits: ReceiverLimits = DEFAULT_RECEIVER_LIMITS) {
  const began = performance.now();
  const kept = new Map<string, { calls: ReceivedCall[]; tooLarge: number; overCap: number }>();
  const waiters = new Set<() => void>();
  let strays = 0;
  const server = createEdgeServer({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 }, (req, res) => {
    // The path without its query: a target that adds one to the webhook's URL (a source, a
    // cache-buster) still calls that webhook; the absolute form a proxy may send is read too.
    const path = pathOf(originForm(req.url ?? "/") ?? "");
    const slot = kept.get(path);
    const refuse = (status: number): void => void res.writeHead(status, { connection: "close" }).end();
    if (!slot) {
      strays += 1;
      req.resume();
      return refuse(404);
    }
    readUpTo(req, limits.maxBodyBytes, {
      overflow: () => {
        slot.tooLarge += 1;
        req.resume();
        refuse(413);
      },
      end: (bytes) => {
        if (slot.calls.length >= limits.maxCallsPerPath) {
          slot.overCap += 1;
          return refuse(503);
        }
        const body = bytes.toString("utf8");
        slot.calls.push({ at: Math.round(performance.now() - began), method: req.method ?? "", headers: req.headers, body, type: eventTypeOf(body) });
        res.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
        for (const wake of waiters) wake();
      },
    });
  });
  const { url } = await listen(server, port, host);
  return {
    /** `http://host:port` it listens on. */
    origin: url,
    /** Starts keeping the calls made to `path`, whatever query they carry (calls to paths not expected are strays). */
    expect(path: string): void {
      if (kept.size >= limits.maxPaths) throw new Error(`the receiver keeps the calls of at most ${limits.maxPaths} paths`);
      if (!kept.has(path)) kept.set(path, { calls: [], tooLarge: 0, overCap: 0 });
    },
    /** The calls made to `path` so far, in the order they arrived. */
    calls: (path: string): ReceivedCall[] => [...(kept.get(path)?.calls ?? [])],
    /** Calls to `path` refused: `tooLarge` (over `maxBodyBytes`), `overCap` (past `maxCallsPerPath`). */
    refused: (path: string) => ({ tooLarge: kept.get(path)?.tooLarge ?? 0, overCap: kept.get(path)?.overCap ?? 0 }),
    /** Calls to paths not expected: a target that reaches the receiver but calls another URL than the webhook's. */
    get strays(): number {
      return strays;
    },
    /** Resolves true once `done(calls(path))` holds, false when `timeoutMs` pass or `signal` aborts first. */
    waitFor(path: string, done: (calls: ReceivedCall[]) => boolean, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
      return new Promise((resolve) => {
        const finish = (value: boolean): void => {
          clearTimeout(timer);
          waiters.delete(check);
          signal?.removeEventListener("abort", aborted);
          resolve(value);
        };
        const check = (): void => {
          if (done(kept.get(path)?.calls ?? [])) finish(true);
        };
        const aborted = (): void => finish(false);
        const timer = setTimeout(() => finish(false), timeoutMs);
        waiters.add(check);
        signal?.addEventListener("abort", aborted);
        if (signal?.aborted) return finish(false);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A body's `type`, when it is JSON that names one. */
function eventTypeOf(body: string): string | undefined {
  try {
    const type: unknown = (JSON.parse(body) as { type?: unknown } | null)?.type;
    return typeof type === "string" ? type : undefined;
  } catch {
    return undefined;
  }
}
