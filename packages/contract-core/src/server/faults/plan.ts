// Which rule fires on a request: the rules of its operation, in file order, each drawing from one
// seeded generator, so that the same seed and the same requests give the same faults.
import { FaultsError, type CheckedFaultRule, type Latency } from "../../formats/faults.js";
import { documentedAnswer, type InjectedAnswer } from "../../judgement/answers.js";
import { contractOf, type ApiName } from "../../registry/registry.js";
import type { OpenApiValidators } from "../../validation/validators.js";
import { MAX_LATENCY_MS, type FaultName } from "../../wire/prefer.js";

/** What a server does to one request: wait, then give its answer, or fail in one of these ways. */
export interface FaultDecision {
  /** The rule's name (`Prefer` when the request asked for it). */
  rule: string;
  /** Delay before anything is sent, in milliseconds. */
  latencyMs: number;
  fault?: FaultName;
  /** An error answer given in place of the real one. */
  answer?: InjectedAnswer;
}

/** One line of the fault log: which rule fired on which request, and what it did. */
export interface FaultEvent extends Omit<FaultDecision, "answer"> {
  service: string;
  operationId: string;
  method: string;
  path: string;
  /** The injected status, when the rule answered in place of the server. */
  status?: number;
}

/** The faults a server injects (`faults` of the mock's and the proxy's options). */
export interface FaultsOptions {
  /** From `loadFaults(file, apis)` or `parseFaults(document)`; rules naming another API's operations are left out. */
  rules: readonly CheckedFaultRule[];
  /** Same seed, same requests: same faults. Default 0. */
  seed?: number | string;
  /** Called for each request a rule injects something into (the mock: or the request's `Prefer` header). */
  onFault?: (event: FaultEvent) => void;
}

/** The log line of a fault, as `api-mock` and `contract-proxy` print it. */
export function describeFault(event: FaultEvent): string {
  const what = [
    event.status !== undefined ? `status ${event.status}` : undefined,
    event.fault,
    event.latencyMs > 0 ? `${event.latencyMs} ms latency` : undefined,
  ].filter(Boolean);
  const rule = event.rule === "Prefer" ? "Prefer header" : `rule "${event.rule}"`;
  return `fault: ${event.service} ${event.operationId} ${event.method} ${event.path}: ${rule}: ${what.join(", ")}`;
}

/** 32-bit FNV-1a of a text: turns any seed into the generator's state. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: a small, fast generator of uniform numbers in [0, 1); plenty for picking faults. */
export function seededRandom(seed: number | string): () => number {
  let state = hash(String(seed));
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A delay drawn from a rule's latency, in whole milliseconds, never above {@link MAX_LATENCY_MS}. */
export function sampleLatency(latency: Latency, random: () => number): number {
  if (typeof latency === "number") return latency;
  if ("min" in latency) return latency.min + Math.floor(random() * (latency.max - latency.min + 1));
  // Log-normal: ln(delay) is normal with its median at ln(median) and its 99th percentile at ln(p99).
  const mu = Math.log(latency.median);
  const sigma = (Math.log(latency.p99) - mu) / 2.3263478740408408;
  const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Math.min(MAX_LATENCY_MS, Math.round(Math.exp(mu + sigma * z)));
}

export interface FaultInjectorOptions {
  /** The API the server speaks; its operations are those the rules may name. */
  validators: OpenApiValidators;
  /** Its name: mixed into the seed, so that each API of one run draws from its own sequence. */
  service: string;
  /** Same seed, same requests: same faults. */
  seed: number | string;
}

/**
 * The faults of one server: decides, request by request, which rule fires. Rules naming operations
 * of another API are left out (one file serves every API of a run); a rule whose status an operation
 * it applies to does not document is refused with a {@link FaultsError}.
 */
export class FaultInjector {
  private readonly random: () => number;
  /** Each operation's rules, with the error answer a rule with a status gives in place of the operation's. */
  private readonly byOperation = new Map<string, Array<{ rule: CheckedFaultRule; answer?: InjectedAnswer }>>();

  constructor(rules: readonly CheckedFaultRule[], options: FaultInjectorOptions) {
    this.random = seededRandom(`${options.seed}:${options.service}`);
    for (const { operationId } of options.validators.listOperations()) {
      const armed = rules
        .filter((rule) => rule.operations === undefined || rule.operations.includes(operationId))
        .map((rule) => {
          if (rule.status === undefined) return { rule };
          const answer = documentedAnswer(options.validators, operationId, rule.status);
          if (!answer) throw new FaultsError(`${rule.name}: ${operationId} documents no ${rule.status} answer (with an example) to inject`);
          return { rule, answer: rule.retryAfter === undefined ? answer : { ...answer, headers: { ...answer.headers, "retry-after": String(rule.retryAfter) } } };
        });
      if (armed.length > 0) this.byOperation.set(operationId, armed);
    }
  }

  /** The rule that fires on a request to the operation, drawn in file order; undefined when none does. */
  decide(operationId: string): FaultDecision | undefined {
    for (const { rule, answer } of this.byOperation.get(operationId) ?? []) {
      if (this.random() >= rule.probability) continue;
      const decision: FaultDecision = { rule: rule.name, latencyMs: rule.latency === undefined ? 0 : sampleLatency(rule.latency, this.random) };
      if (rule.fault) decision.fault = rule.fault;
      if (answer) decision.answer = answer;
      return decision;
    }
    return undefined;
  }
}

/**
 * The first seed (counting from 0) under which `rules` fire on an operation's first requests as
 * `pattern` says, `true` for a request a rule fires on: `[true, false]` gives a run whose first
 * request to the operation fails and whose second gets through, as a test of retries needs.
 */
export function seedFor(rules: readonly CheckedFaultRule[], api: ApiName, operationId: string, pattern: readonly boolean[]): number {
  const { validators } = contractOf(api);
  for (let seed = 0; seed < 100_000; seed++) {
    const injector = new FaultInjector(rules, { validators, service: api, seed });
    if (pattern.every((fires) => (injector.decide(operationId) !== undefined) === fires)) return seed;
  }
  throw new RangeError(`no seed below 100000 makes the rules fire on ${operationId} as ${JSON.stringify(pattern)}`);
}
