// The per-attempt deadline, shared by the client's transport (main entry) and the timeout and
// retry middleware (./middleware).
import { ClientRequest } from "./request.js";

/** Raised when an attempt takes longer than `timeoutMs`. */
export class TimeoutError extends Error {
  override readonly name = "TimeoutError";
  constructor(
    readonly timeoutMs: number,
    url: string,
  ) {
    super(`Request to ${url} timed out after ${timeoutMs} ms`);
  }
}

/** Checks a wait for setTimeout, which fires at once on anything longer than 2^31 - 1 ms. */
export function positive(value: number, name: string): number {
  if (!(value > 0 && value < 2 ** 31)) throw new RangeError(`${name} must be 1 to 2147483647 ms, got ${value}`);
  return value;
}

/**
 * A signal that aborts with the caller's signal or after `timeoutMs` with a {@link TimeoutError}.
 * fetch, and the answer's body read any way after it, reject with the reason their signal aborted
 * with, so the deadline's own error reaches the caller as it is, body included, with no wrapper on
 * the answer.
 */
export function deadline(request: ClientRequest | Request, timeoutMs: number): AbortSignal {
  const timer = new AbortController();
  // unref: like AbortSignal.timeout's, the timer alone does not keep Node running.
  (setTimeout(() => timer.abort(new TimeoutError(timeoutMs, request.url)), timeoutMs) as { unref?: () => void }).unref?.();
  const own = ClientRequest.ownSignal(request);
  return own ? AbortSignal.any([own, timer.signal]) : timer.signal;
}
