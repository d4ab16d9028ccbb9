import { request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { randomUUID } from "node:crypto";
import { isObject, type JsonObject } from "../document/pointer.js";
import { signWebhook, type WebhookSignatureScheme } from "../webhooks/signature.js";
import type { WebhookSubscription } from "../webhooks/subscriptions.js";
import { parseUrl } from "../wire/urls.js";

/** How far a sender of webhook calls may go; see {@link WebhookDeliverer}. */
export interface DeliveryLimits {
  /** A call not answered (status, headers and body) within this many milliseconds is aborted. */
  timeoutMs: number;
  /** Calls waiting or in flight at once, across every sequence; a call beyond it is dropped. */
  maxPending: number;
  /** Bytes of a receiver's answer read (and discarded) before the connection is cut. */
  maxAnswerBytes: number;
}

/** Firecrawl's own per-call timeout (10 s); a thousand calls pending; 64 KiB of an answer read. */
export const DEFAULT_DELIVERY_LIMITS: DeliveryLimits = { timeoutMs: 10_000, maxPending: 1_000, maxAnswerBytes: 64 * 1024 };

export interface WebhookCall {
  /** The receiver's URL; white space at both ends is ignored, as the contract's `url` rule reads it. */
  url: string;
  /** The JSON payload; it is serialized once and that exact text is signed and sent. */
  payload: unknown;
  /** Extra request headers (a webhook's own `headers`). Framing headers the sender owns are left out. */
  headers?: Record<string, string>;
}

/**
 * What became of a call: `delivered` (a 2xx answer), `refused` (another status), `failed` (no
 * answer: a URL or header that cannot be sent, a refused connection, a reset), `timed-out`,
 * `dropped` (the pending calls were at `maxPending`) or `cancelled` (taken off its sequence, or
 * cut by the deliverer's `close`).
 */
export type DeliveryOutcome = "delivered" | "refused" | "failed" | "timed-out" | "dropped" | "cancelled";

export interface DeliveryReport {
  /** The payload's `type` (the event), when it has one. */
  event: string | undefined;
  url: string;
  outcome: DeliveryOutcome;
  /** The receiver's status, when it answered. */
  status?: number;
  /** Why a call failed, in a few words. */
  error?: string;
  /** From the moment the call was sent to its end, in milliseconds (0 for a call never sent). */
  durationMs: number;
}

/**
 * One line about a call's end, for a log: `crawl.page to http://127.0.0.1:8080/hooks: delivered 200
 * in 3 ms`. The URL is written without its query and credentials, which may carry a token.
 */
export function describeDeliveryReport(report: DeliveryReport): string {
  const url = parseUrl(report.url.trim());
  const where = url ? `${url.protocol}//${url.host}${url.pathname}` : "(not a URL)";
  const status = report.status !== undefined ? ` ${report.status}` : "";
  return `${report.event ?? "(no type)"} to ${where}: ${report.outcome}${status}${report.error ? ` (${report.error})` : ""} in ${report.durationMs} ms`;
}

export interface WebhookDelivererOptions {
  /** How calls are signed (the description's `x-webhook-signature`); needed with `secret`. */
  signature?: WebhookSignatureScheme;
  /** The key calls are signed with; unsigned calls without it (as a service that knows no secret sends them). */
  secret?: string;
  limits?: Partial<DeliveryLimits>;
  /** Told of every call's end, in the order calls end. */
  onReport?: (report: DeliveryReport) => void;
}

/** Headers that frame the message: the sender sets them, a webhook's own `headers` cannot. */
const FRAMING_HEADERS = new Set(["content-length", "transfer-encoding", "connection", "keep-alive", "host", "upgrade", "expect", "te", "trailer", "proxy-connection"]);

const eventOf = (payload: unknown) => (isObject(payload) && typeof payload.type === "string" ? payload.type : undefined);

/**
 * Calls sent one after another: each waits for the previous one's end (an answer, a failure or the
 * timeout), so a receiver gets them in the order they were pushed. Calls still waiting can be
 * taken off (`cancel`), as a cancelled crawl stops its pages.
 */
export class WebhookSequence {
  private readonly waiting: WebhookCall[] = [];
  private running = false;
  private readonly idlers: Array<() => void> = [];

  /** @internal Made by {@link WebhookDeliverer.sequence}. */
  constructor(private readonly deliverer: WebhookDeliverer) {}

  /**
   * Queues the calls, all or none: false (and each reported `dropped`) when they do not fit
   * under `maxPending`, so that a receiver never gets a sequence with a hole in it.
   */
  push(...calls: WebhookCall[]): boolean {
    if (!this.deliverer.reserve(calls)) return false;
    this.waiting.push(...calls);
    void this.drain();
    return true;
  }

  /** Takes the waiting calls that `keep` refuses off the sequence (each reported `cancelled`); returns how many. */
  cancel(keep: (call: WebhookCall) => boolean = () => false): number {
    const dropped = this.waiting.filter((call) => !keep(call));
    if (dropped.length === 0) return 0;
    const kept = this.waiting.filter(keep);
    this.waiting.splice(0, this.waiting.length, ...kept);
    for (const call of dropped) this.deliverer.release(call, "cancelled");
    return dropped.length;
  }

  /** Resolves once nothing is waiting or in flight. */
  idle(): Promise<void> {
    if (!this.running && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idlers.push(resolve));
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    // Once the deliverer is closed, each call still waiting is dispatched as cancelled.
    for (let next = this.waiting.shift(); next !== undefined; next = this.waiting.shift()) {
      await this.deliverer.dispatch(next);
    }
    this.running = false;
    for (const resolve of this.idlers.splice(0)) resolve();
  }
}

/**
 * Sends webhook calls as a service does: `POST`, `Content-Type: application/json`, the webhook's
 * own headers, and the signature headers of the description's scheme over the exact body sent.
 * Bounded so that a receiver cannot hurt the sender: each call ends after `timeoutMs`, at most
 * `maxPending` calls wait or run at once (more are dropped, never queued without end), an answer's
 * body is read up to `maxAnswerBytes`, and nothing is retried. Sending never blocks its caller:
 * `send` and a sequence's `push` return at once, and every end is told to `onReport`.
 */
export class WebhookDeliverer {
  readonly limits: DeliveryLimits;
  private pendingCount = 0;
  private closed = false;
  private readonly inFlight = new Set<ClientRequest>();
  private readonly settledWaiters: Array<() => void> = [];
  private readonly counts: Record<DeliveryOutcome, number> = { delivered: 0, refused: 0, failed: 0, "timed-out": 0, dropped: 0, cancelled: 0 };

  constructor(private readonly options: WebhookDelivererOptions = {}) {
    this.limits = { ...DEFAULT_DELIVERY_LIMITS };
    for (const [name, value] of Object.entries(options.limits ?? {})) {
      if (!Object.hasOwn(DEFAULT_DELIVERY_LIMITS, name)) throw new TypeError(`unknown delivery limit ${name}`);
      if (value === undefined) continue;
      if (!Number.isInteger(value) || value <= 0) throw new TypeError(`delivery limit ${name} must be a positive integer, got ${String(value)}`);
      this.limits[name as keyof DeliveryLimits] = value;
    }
    if (options.secret !== undefined) {
      if (!options.signature) throw new TypeError("a webhook secret needs the description's signature scheme (x-webhook-signature)");
      // A malformed Standard Webhooks secret is refused now, not at the first call.
      signWebhook(options.signature, "{}", options.secret);
    }
  }

  /** Calls waiting or in flight. */
  get pending(): number {
    return this.pendingCount;
  }

  /** How many more calls fit under `maxPending` now (0 once closed). */
  get room(): number {
    return this.closed ? 0 : this.limits.maxPending - this.pendingCount;
  }

  /** How many calls ended each way so far. */
  get stats(): Readonly<Record<DeliveryOutcome, number>> {
    return { ...this.counts };
  }

  /** Sends one call on its own, at once; false (and a `dropped` report) when `maxPending` calls are pending. */
  send(call: WebhookCall): boolean {
    return this.sequence().push(call);
  }

  /** A new sequence: calls that reach their receiver one after another. */
  sequence(): WebhookSequence {
    return new WebhookSequence(this);
  }

  /** Resolves once no call is pending. */
  settled(): Promise<void> {
    if (this.pendingCount === 0) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  /** Cancels every waiting call, aborts those in flight, and drops any call sent afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    for (const request of this.inFlight) request.destroy(new Error("the sender closed"));
    await this.settled();
  }

  /** @internal Takes places for the calls under `maxPending`, all or none: false, and each reported `dropped`, when they do not fit. */
  reserve(calls: readonly WebhookCall[]): boolean {
    if (this.closed || this.pendingCount + calls.length > this.limits.maxPending) {
      for (const call of calls) this.report(call, "dropped", 0, { error: "too many calls pending" });
      return false;
    }
    this.pendingCount += calls.length;
    return true;
  }

  /** @internal Gives a reserved place back for a call that has ended, or will not be sent (after 0 ms). */
  release(call: WebhookCall, outcome: DeliveryOutcome, durationMs = 0, extra: { status?: number; error?: string } = {}): void {
    this.pendingCount -= 1;
    this.report(call, outcome, durationMs, extra);
    if (this.pendingCount === 0) for (const resolve of this.settledWaiters.splice(0)) resolve();
  }

  private report(call: WebhookCall, outcome: DeliveryOutcome, durationMs: number, extra: { status?: number; error?: string } = {}): void {
    this.counts[outcome] += 1;
    this.options.onReport?.({ event: eventOf(call.payload), url: call.url, outcome, durationMs, ...extra });
  }

  /** The request headers of a call whose body is `body`. */
  private headersOf(call: WebhookCall, body: string): Record<string, string> {
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    for (const [name, value] of Object.entries(call.headers ?? {})) {
      if (FRAMING_HEADERS.has(name.toLowerCase())) continue;
      // A custom header replaces the default of the same name in any case, as the service's spread does.
      for (const existing of Object.keys(headers)) if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
      headers[name] = value;
    }
    if (this.options.secret !== undefined && this.options.signature) Object.assign(headers, signWebhook(this.options.signature, body, this.options.secret));
    headers["Content-Length"] = String(Buffer.byteLength(body));
    return headers;
  }

  /** @internal Sends a reserved call and resolves when it has ended; never rejects. */
  dispatch(call: WebhookCall): Promise<void> {
    if (this.closed) {
      this.release(call, "cancelled");
      return Promise.resolve();
    }
    const started = performance.now();
    return new Promise<void>((resolve) => {
      let request: ClientRequest | undefined;
      let done = false;
      const end = (outcome: DeliveryOutcome, extra: { status?: number; error?: string } = {}): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (request) {
          this.inFlight.delete(request);
          request.destroy();
        }
        this.release(call, outcome, Math.round(performance.now() - started), extra);
        resolve();
      };
      const timer = setTimeout(() => end("timed-out", { error: `no answer within ${this.limits.timeoutMs} ms` }), this.limits.timeoutMs);
      try {
        const url = new URL(call.url.trim());
        if (url.protocol !== "http:" && url.protocol !== "https:") return end("failed", { error: `${url.protocol} URLs are not called` });
        const body = JSON.stringify(call.payload);
        const send = url.protocol === "https:" ? httpsRequest : httpRequest;
        request = send(url, { method: "POST", headers: this.headersOf(call, body), agent: false });
        this.inFlight.add(request);
        request.on("error", (error: Error & { code?: string }) => end(this.closed ? "cancelled" : "failed", { error: error.code ?? error.message }));
        request.on("response", (response: IncomingMessage) => {
          const status = response.statusCode ?? 0;
          const outcome: DeliveryOutcome = status >= 200 && status < 300 ? "delivered" : "refused";
          let read = 0;
          response.on("data", (chunk: Buffer) => {
            read += chunk.length;
            if (read > this.limits.maxAnswerBytes) end(outcome, { status });
          });
          response.on("end", () => end(outcome, { status }));
          response.on("error", () => end(outcome, { status }));
        });
        request.end(body);
      } catch (error) {
        end("failed", { error: (error as Error & { code?: string }).code ?? (error as Error).message });
      }
    });
  }
}

/** What happened to a job (a crawl), as one webhook call reports it. */
export interface JobEvent {
  /** The event: `crawl.page`. */
  type: string;
  /** The job's id: the crawl's. */
  id: string;
  success: boolean;
  data: unknown[];
  error?: string;
}

/**
 * The call that tells a subscription of a job's event, in the Web Data envelope: `{success, type,
 * id, webhookId, data, error?, metadata}` in the service's member order, a new `webhookId` per
 * call, the subscription's `metadata` echoed and its headers sent.
 */
export function jobEventCall(subscription: WebhookSubscription, event: JobEvent): WebhookCall {
  const payload: JsonObject = { success: event.success, type: event.type, id: event.id, webhookId: randomUUID(), data: event.data };
  if (event.error !== undefined) payload.error = event.error;
  payload.metadata = subscription.metadata;
  return { url: subscription.url, headers: subscription.headers, payload };
}
