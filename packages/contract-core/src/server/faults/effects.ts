// What an injected fault does to a node:http exchange. Every timer is bounded and cleared as soon as
// the connection closes, so that no fault outlives its client or keeps a closing server open.
import type { ServerResponse } from "node:http";
import type { InjectedAnswer } from "../../judgement/answers.js";

/** A slow body goes out in this many pieces (fewer for a shorter body)... */
const SLOW_BODY_PIECES = 10;
/** ...one every this many milliseconds after the first, which goes with the headers. */
export const SLOW_BODY_INTERVAL_MS = 200;

/** Calls `fire` after `ms`, unless the response's connection closes first; the timer goes either way. */
function unlessClosed(res: ServerResponse, ms: number, fire: () => void): void {
  const timer = setTimeout(() => {
    res.off("close", cancel);
    fire();
  }, ms);
  const cancel = () => clearTimeout(timer);
  res.once("close", cancel);
}

/** Resolves `true` after `ms`, or `false` as soon as the client goes away. */
export function delayAnswer(res: ServerResponse, ms: number): Promise<boolean> {
  if (ms <= 0 || res.destroyed) return Promise.resolve(!res.destroyed);
  return new Promise((resolve) => {
    unlessClosed(res, ms, () => resolve(!res.destroyed));
    res.once("close", () => resolve(false));
  });
}

/** Closes the connection at once with a TCP reset: the client gets no answer (`ECONNRESET`). */
export function resetConnection(res: ServerResponse): void {
  if (res.socket && !res.socket.destroyed) res.socket.resetAndDestroy();
}

/** Sends nothing; the connection is closed when the client gives up, or after `deadlineMs` at the latest. */
export function hangConnection(res: ServerResponse, deadlineMs: number): void {
  unlessClosed(res, deadlineMs, () => res.socket?.destroy());
}

/**
 * Ends a response whose head has been written (with the body's length) by sending `body` in up to
 * {@link SLOW_BODY_PIECES} pieces, one every {@link SLOW_BODY_INTERVAL_MS}; whatever is left when
 * `deadlineMs` has passed goes at once.
 */
export function endSlowly(res: ServerResponse, body: Buffer, deadlineMs: number): void {
  const pieces = Math.max(1, Math.min(SLOW_BODY_PIECES, body.length));
  const size = Math.ceil(body.length / pieces);
  const started = Date.now();
  let sent = 0;
  const next = () => {
    if (res.destroyed) return;
    const late = Date.now() - started + SLOW_BODY_INTERVAL_MS > deadlineMs;
    const end = late ? body.length : Math.min(body.length, sent + size);
    if (end >= body.length) return void res.end(body.subarray(sent));
    res.write(body.subarray(sent, end));
    sent = end;
    unlessClosed(res, SLOW_BODY_INTERVAL_MS, next);
  };
  res.flushHeaders();
  next();
}

export function sendInjected(res: ServerResponse, answer: InjectedAnswer): void {
  res.writeHead(answer.status, { ...answer.headers, "content-length": String(answer.body.length) });
  res.end(answer.body);
}
