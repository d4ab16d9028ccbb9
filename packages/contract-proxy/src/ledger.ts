// What the proxy has seen: its counts, its most recent report lines, the report file, the
// coverage of the traffic and the known differences used. The stages write here and read back
// only whether known differences explain a violation, and how to hide the credentials in a text.
import { writeFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { CoverageRecorder, KnownDifferences, redactor, truncate, type JsonObject, type KnownDifference, type OperationInfo, type SentRequest, type WebhookInfo } from "@api-contracts/contract-core";
import { type FaultDecision } from "@api-contracts/contract-core/server";
import type { RuleError } from "./judge.js";
import type { ProxyCounts, Settings } from "./options.js";
import { ReportFile, boundedPath, boundedViolation, credentialShapes, knownReason, secretsOf, type InjectedLine, type Violation } from "./report.js";

/** How many report lines `violations` keeps; the report file keeps them all. */
const RECENT_VIOLATIONS = 1_000;

/** What the ledger reads of an exchange. */
interface LedgerExchange {
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

/** What one exchange has learned so far, as it passes intake, fault injection and relaying; written out just before its answer's head goes to the client. */
export interface Exchange extends LedgerExchange {
  /** The request target in origin-form: path and query. */
  target: string;
  operation: OperationInfo | undefined;
  /**
   * A fired `slow-body` rule, reported only once the upstream's answer shows whether it applies:
   * only an answer read whole is trickled to the client.
   */
  slowBody?: { operationId: string; decision: FaultDecision };
}

/** A body not judged (too large, or not decodable), for {@link LedgerExchange.unjudged}: reported, not a violation. */
export function notJudged(direction: "request" | "response", reason: string): LedgerExchange["unjudged"][number] {
  return { direction, error: { in: "body", pointer: "", keyword: "judgeLimit", message: `not judged: ${reason}` } };
}

export class Ledger {
  readonly counts: ProxyCounts = { exchanges: 0, violations: 0, known: 0, notJudged: 0, injected: 0, deliveries: 0 };
  readonly recent: Violation[] = [];
  readonly coverage: CoverageRecorder;
  private readonly report: ReportFile | undefined;
  private readonly known: KnownDifferences | undefined;
  private readonly credentialShapes: RegExp;

  /** `document` is the bundle the coverage is counted against. */
  constructor(private readonly options: Settings, document: JsonObject) {
    this.report = options.report === undefined ? undefined : new ReportFile(options.report);
    this.known = options.knownDifferences ? new KnownDifferences(options.knownDifferences) : undefined;
    this.coverage = new CoverageRecorder(options.api.name, document);
    this.credentialShapes = credentialShapes(options.api.key.prefix);
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
    // Every error is looked up, so that each entry that matches one is counted as used.
    const entries = found.map((error) => this.known!.explain(operation, direction, knownReason(direction, status, error)));
    return entries.every((entry) => entry !== undefined) ? [...new Set(entries.map((entry) => entry.why))] : undefined;
  }

  /** What every report line begins with. */
  private head() {
    return { time: new Date().toISOString(), service: this.options.api.name };
  }

  /** Writes one report line; returns 1 when it counts as a violation. */
  private record(ex: LedgerExchange, status: number, direction: Violation["direction"], found: RuleError[], judged = true): number {
    const whys = judged ? this.explained(ex, status, direction, found) : undefined;
    const line: Violation = {
      ...this.head(),
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

  /**
   * Counts a webhook call relayed, and writes what it broke (none when it kept the contract) and why
   * its body was not judged; `status` is what its sender got.
   */
  delivery(call: Pick<LedgerExchange, "method" | "path" | "headers">, webhook: WebhookInfo | undefined, status: number, errors: RuleError[], unjudged?: string): void {
    this.counts.deliveries++;
    const ex: LedgerExchange = { ...call, operation: webhook, requestErrors: [], unjudged: [], sent: {} };
    if (errors.length > 0) this.record(ex, status, "delivery", errors);
    if (unjudged) this.record(ex, status, "delivery", [notJudged("request", unjudged).error], false);
  }

  /** Writes the line of an exchange a faults rule fired on, and counts it. */
  injected(ex: LedgerExchange, operationId: string, injected: InjectedLine["injected"]): InjectedLine {
    this.counts.injected++;
    const line = { ...this.head(), operationId, method: truncate(ex.method, 20), path: boundedPath(this.redactFor(ex)(ex.path)), injected };
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
      for (const entry of this.stale()) this.report?.write({ ...this.head(), stale: entry });
      this.report?.close();
    }
  }
}
