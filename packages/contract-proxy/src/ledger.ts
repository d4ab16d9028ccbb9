// What the proxy has seen: its counts, its most recent report lines, the report file, the
// coverage of the traffic and the known differences used. The relaying, fault injection and
// webhook relay write here and read nothing back but the counts.
import { writeFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { CoverageRecorder, KnownDifferences, redactor, type JsonObject, type KnownDifference, type SentRequest } from "@api-contracts/contract-core";
import type { RuleError } from "./judge.js";
import type { RelayedCall } from "./webhooks.js";
import { ReportFile, boundedInjected, boundedViolation, credentialShapes, knownReason, secretsOf, type InjectedLine, type StaleLine, type Violation } from "./report.js";

export interface ProxyCounts {
  exchanges: number;
  violations: number;
  /** Violations a known difference explains: reported, not counted in `violations`. */
  known: number;
  /** Bodies larger than the judging limit, passed through unjudged. */
  notJudged: number;
  /** Exchanges a faults rule fired on. */
  injected: number;
  /** Webhook calls relayed (`webhooks`). */
  deliveries: number;
}

/** How many report lines `violations` keeps; the report file keeps them all. */
export const RECENT_VIOLATIONS = 1_000;

/** What the ledger reads of an exchange. */
export interface LedgerExchange {
  method: string;
  path: string;
  operation: { operationId: string } | undefined;
  /** The request's headers: the credentials in them are looked for only when something is written out. */
  headers: IncomingHttpHeaders;
  requestErrors: RuleError[];
  unjudged: Array<{ direction: Violation["direction"]; error: RuleError }>;
  /** The query parameters, headers and JSON body the request carried, for the coverage. */
  sent: SentRequest;
}

/** A body not judged (too large, or not decodable), for {@link LedgerExchange.unjudged}: reported, not a violation. */
export function notJudged(direction: "request" | "response", reason: string): LedgerExchange["unjudged"][number] {
  return { direction, error: { in: "body", pointer: "", keyword: "judgeLimit", message: `not judged: ${reason}` } };
}

export interface LedgerOptions {
  service: string;
  /** The bundle the coverage is counted against. */
  document: JsonObject;
  /** What the API's keys start with: text shaped like one is hidden, as are the request's own credentials. */
  keyPrefix: string;
  report?: string;
  coverage?: string;
  knownDifferences?: readonly KnownDifference[];
  onViolation?: (violation: Violation) => void;
}

export class Ledger {
  readonly counts: ProxyCounts = { exchanges: 0, violations: 0, known: 0, notJudged: 0, injected: 0, deliveries: 0 };
  readonly recent: Violation[] = [];
  readonly coverage: CoverageRecorder;
  private readonly report: ReportFile | undefined;
  private readonly known: KnownDifferences | undefined;
  private readonly credentialShapes: RegExp;

  constructor(private readonly options: LedgerOptions) {
    this.report = options.report === undefined ? undefined : new ReportFile(options.report);
    this.known = options.knownDifferences ? new KnownDifferences(options.knownDifferences) : undefined;
    this.coverage = new CoverageRecorder(options.service, options.document);
    this.credentialShapes = credentialShapes(options.keyPrefix);
    this.writeCoverage();
  }

  /** Written at once, so that a path that cannot be written fails at the start and the file always holds a whole report. */
  private writeCoverage(): void {
    if (this.options.coverage !== undefined) writeFileSync(this.options.coverage, `${JSON.stringify(this.coverage.report(), null, 2)}\n`);
  }

  /** Hides in text the credentials the exchange's request carries, in any letter case, and anything shaped like a key. */
  redactFor(ex: LedgerExchange): (text: string) => string {
    return redactor(secretsOf(ex.headers), this.credentialShapes);
  }

  /** Why each error of a violation is accepted; undefined unless every one of them is. */
  explained(ex: LedgerExchange, status: number, direction: Violation["direction"], found: RuleError[]): string[] | undefined {
    if (!this.known || found.length === 0) return undefined;
    const operation = ex.operation?.operationId ?? `${ex.method} ${ex.path}`;
    const whys = new Set<string>();
    let all = true;
    // Every error is looked up, so that each entry that matches one is counted as used.
    for (const error of found) {
      const entry = this.known.explain(operation, direction, knownReason(direction, status, error));
      if (entry) whys.add(entry.why);
      else all = false;
    }
    return all ? [...whys] : undefined;
  }

  /** Writes one report line; returns 1 when it counts as a violation. */
  private record(ex: LedgerExchange, status: number, direction: Violation["direction"], found: RuleError[], judged = true): number {
    const whys = judged ? this.explained(ex, status, direction, found) : undefined;
    const line: Violation = {
      time: new Date().toISOString(),
      service: this.options.service,
      operationId: ex.operation?.operationId ?? null,
      method: ex.method,
      path: ex.path,
      status,
      direction,
      errors: found,
      ...(judged ? {} : { judged: false as const }),
      ...(whys ? { known: whys } : {}),
    };
    const bounded = boundedViolation(line, this.redactFor(ex));
    if (!judged) this.counts.notJudged++;
    else if (whys) this.counts.known++;
    else this.counts.violations++;
    this.recent.push(bounded);
    if (this.recent.length > RECENT_VIOLATIONS) this.recent.shift();
    this.report?.write(bounded);
    this.options.onViolation?.(bounded);
    return judged && !whys ? 1 : 0;
  }

  /**
   * Writes the exchange's report lines; returns its count of violations (known ones excluded), for
   * the header. An answer the proxy made up in the upstream's place covers no status of the upstream's.
   */
  finish(ex: LedgerExchange, status: number, responseErrors: RuleError[], madeUp = false): number {
    this.coverage.record(ex.operation?.operationId ?? null, madeUp ? 0 : status, ex.sent);
    let count = 0;
    if (ex.requestErrors.length > 0) count += this.record(ex, status, "request", ex.requestErrors);
    if (responseErrors.length > 0) count += this.record(ex, status, "response", responseErrors);
    for (const { direction, error } of ex.unjudged) this.record(ex, status, direction, [error], false);
    return count;
  }

  /** Counts a webhook call relayed, and writes what it broke and whether its body went unjudged. */
  delivery(call: RelayedCall): void {
    this.counts.deliveries++;
    const ex: LedgerExchange = { method: call.method, path: call.path, operation: call.webhook, headers: call.headers, requestErrors: [], unjudged: [], sent: {} };
    if (call.errors.length > 0) this.record(ex, call.status, "delivery", call.errors);
    if (call.notJudged) this.record(ex, call.status, "delivery", [notJudged("request", call.notJudged).error], false);
  }

  /** Writes the line of an exchange a faults rule fired on, and counts it. */
  injected(ex: LedgerExchange, operationId: string, injected: InjectedLine["injected"]): InjectedLine {
    this.counts.injected++;
    const line = boundedInjected({ time: new Date().toISOString(), service: this.options.service, operationId, method: ex.method, path: ex.path, injected }, this.redactFor(ex));
    this.report?.write(line);
    return line;
  }

  /** Known differences no violation has matched so far. */
  stale(): KnownDifference[] {
    return this.known?.stale() ?? [];
  }

  /** Writes the coverage, then the stale entries, and closes the report; a coverage that cannot be written is thrown after. */
  close(): void {
    try {
      this.writeCoverage();
    } finally {
      for (const entry of this.stale()) {
        const line: StaleLine = { time: new Date().toISOString(), service: this.options.service, stale: entry };
        this.report?.write(line);
      }
      this.report?.close();
    }
  }
}
