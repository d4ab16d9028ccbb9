/** How much state the servers keep; see the limits table in the README. */
export interface StateLimits {
  /** Live locks kept at once (entitlements); a new lock beyond this is refused with 429. */
  maxLocks: number;
  /** Idempotency keys remembered at once, per server; beyond it the oldest is forgotten. */
  maxIdempotencyKeys: number;
  /** How long an idempotency key is remembered, in milliseconds. */
  idempotencyKeyTtlMs: number;
  /** Crawl jobs started through the API kept at once (web data); beyond it the oldest is forgotten. */
  maxCrawls: number;
}

export const DEFAULT_STATE_LIMITS: StateLimits = {
  maxLocks: 100_000,
  maxIdempotencyKeys: 100_000,
  idempotencyKeyTtlMs: 24 * 3_600_000,
  maxCrawls: 10_000,
};

/**
 * Keys remembered for a fixed time, at most `max` of them. Every key lives equally long, so a
 * Map's insertion order is also expiry order: expired keys are dropped from the front, and when
 * the set is full the oldest key is forgotten first.
 */
export class ExpiringKeys {
  private readonly expiries = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  /** Remembers the key; false when it is still remembered from before. */
  add(key: string): boolean {
    const now = this.now();
    for (const [old, expiresAt] of this.expiries) {
      if (expiresAt > now) break;
      this.expiries.delete(old);
    }
    if (this.expiries.has(key)) return false;
    if (this.expiries.size >= this.max) this.expiries.delete(this.expiries.keys().next().value!);
    this.expiries.set(key, now + this.ttlMs);
    return true;
  }

  has(key: string): boolean {
    const expiresAt = this.expiries.get(key);
    return expiresAt !== undefined && expiresAt > this.now();
  }
}
