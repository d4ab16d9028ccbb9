import { createHash } from "node:crypto";
import type { components } from "@api-contracts/entitlements-client";
import type { Feature, Product, World, WorldCustomer } from "../fixtures.js";
import { ExpiringKeys, type StateLimits } from "../state.js";

type Schemas = components["schemas"];
export type Balance = Schemas["Balance"];
export type Flag = Schemas["Flag"];
export type CheckResponse = Schemas["CheckResponse"];
export type TrackResponse = Schemas["TrackResponse"];
export type LimitReached = Schemas["LimitReached"];
type Interval = NonNullable<Product["items"][number]["interval"]>;

/** The codes of the `Error` table this store refuses with. */
type EntitlementsErrorCode =
  | "invalid_inputs"
  | "invalid_request"
  | "insufficient_balance"
  | "customer_not_found"
  | "feature_not_found"
  | "entity_not_found"
  | "lock_already_exists"
  | "duplicate_idempotency_key"
  | "rate_limit_exceeded";

/** A refusal in the API's error vocabulary; the HTTP layer turns it into the documented body. */
export class EntitlementsError extends Error {
  constructor(
    readonly status: 400 | 404 | 409 | 429,
    readonly code: EntitlementsErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** `send_event` or a lock on a boolean feature: it has no balance to deduct or hold (live: runCheckWithTrackV2). */
function booleanUsage(): EntitlementsError {
  return new EntitlementsError(400, "invalid_request", "send_event cannot be used with boolean features, which are flags rather than usage-tracked.");
}

/** One source of a balance: a product item granting the feature. */
interface Source {
  productId: string;
  included: number | "inf";
  interval: Interval | null;
  intervalCount: number;
}

/** The running state of one feature for one customer or entity. */
interface Account {
  featureId: string;
  sources: Source[];
  usage: number;
  /** Units held by live locks, by lock id. */
  held: Map<string, number>;
  /** The sum of `held`, kept up to date so that a check never walks every lock. */
  heldTotal: number;
  nextResetAt: number | null;
}

interface Holder {
  customerId: string;
  entityId: string | null;
  productIds: string[];
  accounts: Map<string, Account>;
}

/** A live hold: units reserved on one or more accounts under one lock id. */
interface Lock {
  id: string;
  /** The customer or entity whose balances it holds. */
  holder: Holder;
  parts: Array<{ account: Account; amount: number }>;
  expiresAt: number | null;
}

/**
 * Locks that expire, soonest first (a binary min-heap), so that releasing the due ones costs
 * O(log n) each instead of a walk over every lock on every request. A lock finalized early
 * stays in the heap until it comes out or the heap is compacted.
 */
class ExpiryQueue {
  private heap: Lock[] = [];

  get size(): number {
    return this.heap.length;
  }

  peek(): Lock | undefined {
    return this.heap[0];
  }

  push(lock: Lock): void {
    const heap = this.heap;
    heap.push(lock);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.expiresAt! <= lock.expiresAt!) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = lock;
  }

  pop(): Lock | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && heap[right]!.expiresAt! < heap[left]!.expiresAt! ? right : left;
      if (heap[child]!.expiresAt! >= last.expiresAt!) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
    return top;
  }

  /** Keeps only the locks `live` accepts; a sorted array is a valid heap. */
  compact(live: (lock: Lock) => boolean): void {
    this.heap = this.heap.filter(live).sort((a, b) => a.expiresAt! - b.expiresAt!);
  }
}

/**
 * A sum of amounts, kept between 0 and the largest double. The contract sets no upper bound on an
 * amount, so a huge one is accepted; a total that would overflow to Infinity (sent as `null`)
 * stays at the largest finite number instead.
 */
function saturatedSum(...amounts: number[]): number {
  return Math.min(Number.MAX_VALUE, Math.max(0, amounts.reduce((total, amount) => total + amount, 0)));
}

function hold(account: Account, lockId: string, amount: number): void {
  account.held.set(lockId, amount);
  // Exact, so that releasing any hold (a refund's negative one included) takes back what it added.
  account.heldTotal += amount;
}

function unhold(account: Account, lockId: string): void {
  const amount = account.held.get(lockId);
  if (amount === undefined) return;
  account.held.delete(lockId);
  account.heldTotal -= amount;
  // Reset when empty, so that rounding of fractional holds cannot accumulate; recount after an
  // overflow, which subtraction alone cannot undo.
  if (account.held.size === 0) account.heldTotal = 0;
  else if (!Number.isFinite(account.heldTotal)) account.heldTotal = [...account.held.values()].reduce((sum, held) => sum + held, 0);
}

/** The units live holds take from a balance: their sum, never below zero nor past the largest double. */
function heldNow(account: Account): number {
  return saturatedSum(account.heldTotal);
}

/**
 * What the store remembers of an idempotency key: a fixed-size digest of the customer and the key,
 * as the live service keeps a digest, so a key of any length costs the same few bytes.
 */
function rememberedKey(customerId: string, key: string): string {
  return createHash("sha256").update(customerId).update("\u0000").update(key).digest("base64url");
}

const DAY = 86_400_000;

/** Adds `count` intervals to a timestamp (calendar months in UTC for month-based intervals). */
function addInterval(from: number, interval: Interval, count: number): number {
  const fixed: Partial<Record<Interval, number>> = { minute: 60_000, hour: 3_600_000, day: DAY, week: 7 * DAY };
  const step = fixed[interval];
  if (step !== undefined) return from + step * count;
  const months = { month: 1, quarter: 3, semi_annual: 6, year: 12 }[interval as "month" | "quarter" | "semi_annual" | "year"] * count;
  const d = new Date(from);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d.getTime();
}

/**
 * The entitlements world in memory. Every operation runs synchronously from reading a balance
 * to changing it, so concurrent requests on Node's single thread can never interleave inside a
 * decision: that is what makes `send_event` and locks atomic.
 */
export class EntitlementsStore {
  readonly env: "sandbox" | "live";
  /** Told when a request takes a customer or entity from allowed to denied on a feature (`balances.limit_reached`). */
  onLimitReached: (data: LimitReached) => void = () => undefined;
  private readonly features: Map<string, Feature>;
  private readonly products: Map<string, Product>;
  private readonly customers = new Map<string, { holder: Holder; entities: Map<string, Holder> }>();
  private readonly locks = new Map<string, Lock>();
  private readonly expiries = new ExpiryQueue();
  private readonly idempotencyKeys: ExpiringKeys;

  constructor(
    world: World["entitlements"],
    private readonly now: () => number,
    private readonly limits: Pick<StateLimits, "maxLocks" | "maxIdempotencyKeys" | "idempotencyKeyTtlMs">,
  ) {
    this.idempotencyKeys = new ExpiringKeys(limits.maxIdempotencyKeys, limits.idempotencyKeyTtlMs, now);
    this.env = world.env ?? "sandbox";
    this.features = new Map(world.features.map((f) => [f.id, structuredClone(f)]));
    this.products = new Map(world.products.map((p) => [p.id, structuredClone(p)]));
    for (const c of world.customers) this.addCustomer(c);
  }

  private addCustomer(c: WorldCustomer): void {
    const holder = this.makeHolder(c.id, null, c.products, c.usage ?? {});
    const entities = new Map((c.entities ?? []).map((e) => [e.id, this.makeHolder(c.id, e.id, e.products ?? c.products, e.usage ?? {})]));
    this.customers.set(c.id, { holder, entities });
  }

  private makeHolder(customerId: string, entityId: string | null, productIds: string[], usage: Record<string, number>): Holder {
    const accounts = new Map<string, Account>();
    for (const productId of productIds) {
      for (const item of this.products.get(productId)?.items ?? []) {
        const feature = item.feature_id ? this.features.get(item.feature_id) : undefined;
        if (!feature || feature.type === "boolean" || item.type === "price") continue;
        let account = accounts.get(feature.id);
        if (!account) {
          account = { featureId: feature.id, sources: [], usage: Object.hasOwn(usage, feature.id) ? (usage[feature.id] ?? 0) : 0, held: new Map(), heldTotal: 0, nextResetAt: null };
          accounts.set(feature.id, account);
        }
        const interval = feature.consumable ? (item.interval ?? null) : null;
        account.sources.push({ productId, included: item.included_usage === "inf" ? "inf" : (item.included_usage ?? 0), interval, intervalCount: item.interval_count ?? 1 });
        if (interval && account.nextResetAt === null) account.nextResetAt = addInterval(this.now(), interval, item.interval_count ?? 1);
      }
    }
    return { customerId, entityId, productIds, accounts };
  }

  /** Releases every lock whose `expires_at` has passed and applies due period resets. */
  private tick(account?: Account): void {
    const now = this.now();
    for (let due = this.expiries.peek(); due !== undefined && due.expiresAt! <= now; due = this.expiries.peek()) {
      this.expiries.pop();
      if (this.locks.get(due.id) === due) this.endLock(due);
    }
    if (account && account.nextResetAt !== null && account.nextResetAt <= now) {
      const source = account.sources.find((s) => s.interval !== null);
      if (source?.interval) {
        while (account.nextResetAt <= now) account.nextResetAt = addInterval(account.nextResetAt, source.interval, source.intervalCount);
        account.usage = 0;
      }
    }
  }

  private endLock(lock: Lock): void {
    for (const part of lock.parts) unhold(part.account, lock.id);
    this.locks.delete(lock.id);
  }

  private addLock(lock: Lock): void {
    this.locks.set(lock.id, lock);
    if (lock.expiresAt === null) return;
    this.expiries.push(lock);
    if (this.expiries.size > 2 * this.locks.size + 1024) this.expiries.compact((l) => this.locks.get(l.id) === l);
  }

  /**
   * Rejects a check's lock on a feature with nothing to hold (facts). Its 24-hour horizon is an
   * `x-rules` rule of the spec, judged by the validator before the store is reached; a lock whose
   * expiry has already passed is accepted and simply holds nothing from then on.
   */
  private checkLock(feature: Feature): void {
    if (feature.type === "boolean") throw booleanUsage();
    if (!feature.consumable) {
      throw new EntitlementsError(400, "invalid_inputs", `lock can only be placed on a consumable feature; ${feature.id} is not consumable`);
    }
  }

  private rejectLiveLock(lockId: string): void {
    if (this.locks.has(lockId)) throw new EntitlementsError(409, "lock_already_exists", `Lock ${lockId} already exists`);
    if (this.locks.size >= this.limits.maxLocks) {
      throw new EntitlementsError(429, "rate_limit_exceeded", `${this.limits.maxLocks} locks are live, the most this server keeps: finalize some or let them expire`);
    }
  }

  private feature(id: string): Feature {
    const feature = this.features.get(id);
    if (!feature) throw new EntitlementsError(404, "feature_not_found", `Feature ${id} not found`);
    return feature;
  }

  private holder(customerId: string, entityId: string | undefined | null): Holder {
    const customer = this.customers.get(customerId);
    if (!customer) throw new EntitlementsError(404, "customer_not_found", `Customer ${customerId} not found`);
    if (entityId === undefined || entityId === null) return customer.holder;
    const entity = customer.entities.get(entityId);
    if (!entity) throw new EntitlementsError(404, "entity_not_found", `Entity ${entityId} not found for customer ${customerId}`);
    return entity;
  }

  private static granted(account: Account): number {
    return account.sources.reduce((sum, s) => sum + (s.included === "inf" ? 0 : s.included), 0);
  }

  private static unlimited(account: Account): boolean {
    return account.sources.some((s) => s.included === "inf");
  }

  /** What is left to spend: grant minus usage minus live holds, never below zero. */
  private static remaining(account: Account): number {
    return Math.max(0, EntitlementsStore.granted(account) - account.usage - heldNow(account));
  }

  /** Whether a check of the account's feature would be allowed: unlimited, or anything left (as live, for any amount above zero). */
  private static open(account: Account): boolean {
    return EntitlementsStore.unlimited(account) || EntitlementsStore.remaining(account) > 0;
  }

  /**
   * Notes which of the accounts a request is about to draw on are open now, and returns what to
   * call once it has: each that it closed is reported as a limit reached, once per account.
   */
  private watchLimits(holder: Holder, accounts: Array<Account | undefined>): () => void {
    const open = [...new Set(accounts)].filter((account): account is Account => account !== undefined && EntitlementsStore.open(account));
    return () => {
      for (const account of open) {
        if (EntitlementsStore.open(account)) continue;
        // This server has no overage, purchase caps, spend or usage limits: the included allowance is what runs out.
        const data: LimitReached = { customer_id: holder.customerId, feature_id: account.featureId, limit_type: "included" };
        if (holder.entityId !== null) data.entity_id = holder.entityId;
        this.onLimitReached(data);
      }
    };
  }

  private balanceOf(account: Account, expand: boolean): Balance {
    const unlimited = EntitlementsStore.unlimited(account);
    // Usage (and holds) are drawn from the sources in the order the products list them.
    let toAllocate = saturatedSum(account.usage, heldNow(account));
    let usageLeft = account.usage;
    const breakdown = account.sources.map((s, i) => {
      const included = s.included === "inf" ? 0 : s.included;
      const take = s.included === "inf" ? toAllocate : Math.min(toAllocate, included);
      const usage = s.included === "inf" || i === account.sources.length - 1 ? usageLeft : Math.min(usageLeft, included);
      toAllocate -= take;
      usageLeft -= usage;
      return {
        id: `${s.productId}_${account.featureId}`,
        plan_id: s.productId,
        included_grant: included,
        prepaid_grant: 0,
        remaining: s.included === "inf" ? 0 : Math.max(0, included - take),
        usage,
        unlimited: s.included === "inf",
        reset: s.interval ? { interval: s.interval, interval_count: s.intervalCount, resets_at: account.nextResetAt } : null,
        price: null,
        expires_at: null,
      };
    });
    const balance: Balance = {
      feature_id: account.featureId,
      granted: EntitlementsStore.granted(account),
      remaining: unlimited ? 0 : EntitlementsStore.remaining(account),
      usage: account.usage,
      unlimited,
      overage_allowed: false,
      max_purchase: null,
      next_reset_at: account.nextResetAt,
      breakdown,
    };
    if (expand) balance.feature = this.feature(account.featureId);
    return balance;
  }

  private flagOf(holder: Holder, featureId: string, expand: boolean): Flag | null {
    const productId = holder.productIds.find((pid) => (this.products.get(pid)?.items ?? []).some((item) => item.feature_id === featureId));
    if (productId === undefined) return null;
    const flag: Flag = { id: `flag_${holder.customerId}_${featureId}`, plan_id: productId, expires_at: null, feature_id: featureId };
    if (expand) flag.feature = this.feature(featureId);
    return flag;
  }

  /** The check operation: decide, then (only when allowed) record usage or hold units. */
  check(req: Schemas["CheckRequest"], options: { expandBalanceFeature: boolean; expandFlagFeature: boolean }): CheckResponse {
    const feature = this.feature(req.feature_id);
    const holder = this.holder(req.customer_id, req.entity_id);
    // The contract's validator has judged every amount before the store sees it (finite, any
    // sign); a negative one never denies a customer who has a balance, as live.
    const required = req.required_balance ?? req.required_quantity ?? 1;
    if (req.send_event && feature.type === "boolean") throw booleanUsage();
    if (req.lock) this.checkLock(feature);
    const account = holder.accounts.get(feature.id);
    this.tick(account);
    if (req.lock) this.rejectLiveLock(req.lock.lock_id);

    let allowed: boolean;
    let balance: Balance | null = null;
    let flag: Flag | null = null;
    const reportLimits = this.watchLimits(holder, [account]);
    if (feature.type === "boolean") {
      flag = this.flagOf(holder, feature.id, options.expandFlagFeature);
      allowed = flag !== null;
    } else if (!account) {
      allowed = false;
    } else {
      allowed = EntitlementsStore.unlimited(account) || EntitlementsStore.remaining(account) >= required;
      if (allowed && req.lock) {
        hold(account, req.lock.lock_id, required);
        this.addLock({ id: req.lock.lock_id, holder, parts: [{ account, amount: required }], expiresAt: req.lock.expires_at ?? null });
      } else if (allowed && req.send_event) {
        account.usage = saturatedSum(account.usage, required);
      }
      balance = this.balanceOf(account, options.expandBalanceFeature);
    }
    reportLimits();

    const response: CheckResponse = {
      allowed,
      customer_id: req.customer_id,
      entity_id: req.entity_id ?? null,
      required_balance: required,
      balance,
      flag,
      balances: Object.fromEntries([[feature.id, balance]]),
    };
    if (req.with_preview && !allowed) response.preview = this.preview(holder, feature, account);
    return response;
  }

  private preview(holder: Holder, feature: Feature, account: Account | undefined): NonNullable<CheckResponse["preview"]> {
    const grantsMore = (p: Product): boolean =>
      p.items.some((item) => item.feature_id === feature.id && (item.included_usage === "inf" || item.feature_type === "boolean" || (item.included_usage ?? 0) > (account ? EntitlementsStore.granted(account) : 0)));
    const products = [...this.products.values()].filter((p) => !p.archived && !holder.productIds.includes(p.id) && grantsMore(p));
    const name = feature.name;
    const plural = feature.display?.plural ?? name;
    const [scenario, title, message] = account
      ? (["usage_limit", `${name} limit reached`, `You have used all of your ${plural}. Upgrade to get more.`] as const)
      : (["feature_flag", `${name} is not in your plan`, `Upgrade to a plan that includes ${name}.`] as const);
    return { scenario, title, message, feature_id: feature.id, feature_name: name, products };
  }

  /** Confirms (deducting the held units, or `override_value` instead) or releases a lock. */
  finalize(req: Schemas["FinalizeRequest"]): void {
    this.tick();
    const lock = this.locks.get(req.lock_id);
    if (!lock) throw new EntitlementsError(400, "invalid_request", `Lock not found for ID: ${req.lock_id}`);
    if (req.action === "release" && req.override_value !== undefined && req.override_value !== null) {
      throw new EntitlementsError(400, "invalid_inputs", "override_value can only be used with action confirm");
    }
    // A negative override commits a credit, as live.
    const override = req.override_value ?? null;
    const reportLimits = this.watchLimits(lock.holder, lock.parts.map((part) => part.account));
    this.endLock(lock);
    if (req.action === "confirm") {
      for (const part of lock.parts) part.account.usage = saturatedSum(part.account.usage, override ?? part.amount);
    }
    reportLimits();
  }

  /** Records usage by feature id or by event name (every feature listening to the event). */
  track(req: Schemas["TrackRequest"]): TrackResponse {
    const holder = this.holder(req.customer_id, req.entity_id);
    // An empty feature id counts as absent, as live.
    const featureId = req.feature_id || undefined;
    const eventName = req.event_name ?? undefined;
    if ((featureId === undefined) === (eventName === undefined)) {
      throw new EntitlementsError(400, "invalid_inputs", "Exactly one of feature_id or event_name is required");
    }
    const features = featureId !== undefined ? [this.feature(featureId)] : [...this.features.values()].filter((f) => f.event_names?.includes(eventName as string));
    if (features.length === 0) throw new EntitlementsError(404, "invalid_request", `No features found for event name: ${eventName}`);
    this.tick();
    // A track's lock is bounded by nothing the contract states: it holds what the balances it
    // draws on can hold, and nothing on a feature without one.
    if (req.lock) this.rejectLiveLock(req.lock.lock_id);
    const idempotencyKey = req.idempotency_key ? rememberedKey(req.customer_id, req.idempotency_key) : null;
    if (idempotencyKey !== null && this.idempotencyKeys.has(idempotencyKey)) {
      throw new EntitlementsError(409, "duplicate_idempotency_key", `Idempotency key ${req.idempotency_key} was already used`);
    }
    // A negative value is a refund.
    const requested = req.value ?? 1;
    // Every amount is decided and checked before anything changes, so a refusal leaves no trace.
    const draws: Array<{ feature: Feature; account: Account | undefined; amount: number }> = features.map((feature) => {
      // A boolean feature has no balance: its usage event is recorded with nothing to draw.
      const account = feature.type === "boolean" ? undefined : holder.accounts.get(feature.id);
      this.tick(account);
      // `reject` records nothing when the value does not fit, as live.
      if (account && req.overage_behavior === "reject" && requested > 0 && !EntitlementsStore.unlimited(account) && requested > EntitlementsStore.remaining(account)) {
        throw new EntitlementsError(400, "insufficient_balance", `Insufficient balance to deduct ${requested} from ${featureId !== undefined ? `feature ${featureId}` : `event ${eventName}`}`);
      }
      // `cap` never draws more than what is left; the answer reports what was recorded.
      const amount = account && req.overage_behavior === "cap" && requested > 0 && !EntitlementsStore.unlimited(account) ? Math.min(requested, EntitlementsStore.remaining(account)) : requested;
      return { feature, account, amount };
    });
    if (idempotencyKey !== null) this.idempotencyKeys.add(idempotencyKey);
    const lock: Lock | null = req.lock ? { id: req.lock.lock_id, holder, parts: [], expiresAt: req.lock.expires_at ?? null } : null;
    const reportLimits = this.watchLimits(holder, draws.map((draw) => draw.account));
    const balances = new Map<string, Balance | null>();
    let value = requested;
    for (const { feature, account, amount } of draws) {
      if (account) {
        if (feature.id === features[0]?.id) value = amount;
        if (lock) {
          hold(account, lock.id, amount);
          lock.parts.push({ account, amount });
        } else {
          account.usage = saturatedSum(account.usage, amount);
        }
      }
      balances.set(feature.id, account ? this.balanceOf(account, false) : null);
    }
    if (lock && lock.parts.length > 0) this.addLock(lock);
    reportLimits();
    const first = features[0];
    const response: TrackResponse = {
      customer_id: req.customer_id,
      value,
      balance: first ? (balances.get(first.id) ?? null) : null,
      balances: Object.fromEntries(balances),
    };
    if (req.entity_id !== undefined) response.entity_id = req.entity_id;
    if (eventName !== undefined) response.event_name = eventName;
    return response;
  }
}
