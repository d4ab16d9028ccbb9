import { randomUUID } from "node:crypto";
import type { components } from "@api-contracts/webdata-client";
import type { InteractSession, Monitor, World, WorldCrawl } from "../fixtures.js";
import { ExpiringKeys, type StateLimits } from "../state.js";

type TokenUsage = components["schemas"]["TokenUsage"];
type CreditUsagePeriod = components["schemas"]["CreditUsagePeriod"];

/** One credit is worth this many tokens (the service's own conversion). */
export const TOKENS_PER_CREDIT = 15;

/**
 * The web data world in memory: crawl jobs, sessions, monitors and team usage. Crawls of the
 * fixtures are kept for good; crawls started through the API are kept up to `maxCrawls`, the
 * oldest forgotten first (a forgotten job answers 404, as an expired one does on the service).
 */
export class WebdataStore {
  private readonly seededCrawls = new Map<string, WorldCrawl>();
  private readonly startedCrawls = new Map<string, WorldCrawl>();
  private readonly idempotencyKeys: ExpiringKeys;
  private readonly sessions: InteractSession[];
  private readonly monitors: Map<string, Monitor>;

  constructor(
    private readonly world: World["webdata"],
    now: () => number,
    private readonly limits: Pick<StateLimits, "maxCrawls" | "maxIdempotencyKeys" | "idempotencyKeyTtlMs">,
  ) {
    this.idempotencyKeys = new ExpiringKeys(limits.maxIdempotencyKeys, limits.idempotencyKeyTtlMs, now);
    for (const crawl of world.crawls ?? []) this.seededCrawls.set(crawl.id.toLowerCase(), { ...crawl });
    this.sessions = structuredClone(world.sessions);
    this.monitors = new Map(world.monitors.map((m) => [m.id.toLowerCase(), structuredClone(m)]));
  }

  /** Starts a crawl job; returns null when the idempotency key was already used. */
  startCrawl(url: string, idempotencyKey: string | undefined): WorldCrawl | null {
    if (idempotencyKey !== undefined && !this.idempotencyKeys.add(idempotencyKey.toLowerCase())) return null;
    const crawl: WorldCrawl = { id: randomUUID(), url, status: "scraping" };
    if (this.startedCrawls.size >= this.limits.maxCrawls) this.startedCrawls.delete(this.startedCrawls.keys().next().value!);
    this.startedCrawls.set(crawl.id, crawl);
    return crawl;
  }

  /** Cancels a running crawl. Cancelling twice is harmless; a finished crawl cannot be cancelled. */
  cancelCrawl(id: string): "cancelled" | "not_found" | "already_finished" {
    const crawl = this.seededCrawls.get(id.toLowerCase()) ?? this.startedCrawls.get(id.toLowerCase());
    if (!crawl) return "not_found";
    if (crawl.status === "completed" || crawl.status === "failed") return "already_finished";
    crawl.status = "cancelled";
    return "cancelled";
  }

  /** The sessions with that status (as stored, exactly: an unknown one lists none), newest first. */
  listSessions(status?: string): InteractSession[] {
    return this.sessions
      .filter((s) => status === undefined || s.status === status)
      .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  }

  monitor(id: string): Monitor | undefined {
    return this.monitors.get(id.toLowerCase());
  }

  /** The plan's tokens minus 15 tokens for every credit used in the current billing period. */
  tokenUsage(): TokenUsage {
    const { planTokens, billingPeriodStart, billingPeriodEnd } = this.world.token_usage;
    const start = billingPeriodStart === null ? Number.NEGATIVE_INFINITY : Date.parse(billingPeriodStart);
    const end = billingPeriodEnd === null ? Number.POSITIVE_INFINITY : Date.parse(billingPeriodEnd);
    const credits = this.world.credit_usage
      .filter((u) => Date.parse(u.startDate) >= start && Date.parse(u.startDate) < end)
      .reduce((sum, u) => sum + u.credits, 0);
    return { remainingTokens: Math.max(0, planTokens - credits * TOKENS_PER_CREDIT), planTokens, billingPeriodStart, billingPeriodEnd };
  }

  /** Credit usage per calendar month, oldest first; split by key (and naming it) only when asked. */
  historicalCreditUsage(byApiKey: boolean): CreditUsagePeriod[] {
    const groups = new Map<string, CreditUsagePeriod>();
    for (const u of this.world.credit_usage) {
      const key = byApiKey ? `${u.startDate}\u0000${u.apiKey}` : u.startDate;
      const period = groups.get(key);
      if (period) period.totalCredits += u.credits;
      else groups.set(key, { startDate: u.startDate, endDate: u.endDate, totalCredits: u.credits, ...(byApiKey ? { apiKey: u.apiKey } : {}) });
    }
    return [...groups.values()].sort((a, b) => Date.parse(a.startDate) - Date.parse(b.startDate) || (a.apiKey ?? "").localeCompare(b.apiKey ?? ""));
  }
}
