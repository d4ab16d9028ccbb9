// What some traffic exercised of a contract: the documented statuses answered and the request
// members sent, per operation. The contract-test kit counts its own run with it, the contract proxy
// the traffic it saw; both write the format of schema/coverage.schema.json.
import { escapePointer, follow, isObject, type JsonObject } from "../document/pointer.js";
import { documentedResponseFor, walkOperations, type WalkedOperation } from "../document/walk.js";
import type { Coverage, OperationCoverage } from "../generated/coverage.js";
import { isJsonMediaType } from "../wire/media-types.js";
import { shippedSchema } from "./files.js";

export type { Coverage, OperationCoverage, StatusCoverage, MemberCoverage, CoverageTotals, CoverageTally } from "../generated/coverage.js";

/** The format of a coverage report, shipped as `@api-contracts/contract-core/coverage.schema.json`; read on first use. */
export function coverageSchema(): JsonObject {
  return shippedSchema("coverage.schema.json");
}

/** What one request carried, as far as coverage counts it. */
export interface SentRequest {
  /** Names of the query parameters sent. */
  query?: Iterable<string>;
  /** Names of the headers sent (any letter case). */
  headers?: Iterable<string>;
  /** The parsed JSON body; only an object's own top-level members count. */
  body?: unknown;
}

/** Schema keywords whose subschemas describe the same value: a member any of them names is a member of the body. */
const SAME_VALUE = ["allOf", "anyOf", "oneOf"] as const;
const SAME_VALUE_ONE = ["if", "then", "else"] as const;

/** The member names of an object schema, through `$ref`s and every branch that describes the same value. */
function topLevelMembers(document: JsonObject, pointer: string): string[] {
  const names = new Set<string>();
  const seen = new Set<string>();
  const visit = (node: unknown, at: string) => {
    const reached = follow(document, node, at);
    if (seen.has(reached.pointer) || !isObject(reached.node)) return;
    seen.add(reached.pointer);
    const schema = reached.node;
    if (isObject(schema.properties)) for (const name of Object.keys(schema.properties)) names.add(name);
    for (const keyword of SAME_VALUE) {
      const branches = schema[keyword];
      if (Array.isArray(branches)) branches.forEach((branch, i) => visit(branch, `${reached.pointer}/${keyword}/${i}`));
    }
    for (const keyword of SAME_VALUE_ONE) if (schema[keyword] !== undefined) visit(schema[keyword], `${reached.pointer}/${keyword}`);
  };
  visit({ $ref: `#${pointer}` }, pointer);
  return [...names];
}

interface Tracked {
  walked: WalkedOperation;
  /** Documented members as the report names them (`query/<name>`), in the order: body, query, header. */
  members: Set<string>;
  exchanges: number;
  seen: Set<string>;
  undocumented: Set<string>;
  sent: Set<string>;
}

const member = (where: "body" | "query" | "header", name: string) => `${where}/${escapePointer(name)}`;

/**
 * Counts traffic against the operations of one description. Memory is bounded by the description
 * (documented statuses and members only; undocumented statuses are at most 900 codes).
 */
export class CoverageRecorder {
  private readonly operations = new Map<string, Tracked>();
  private exchanges = 0;
  private unmatched = 0;

  constructor(
    /** The registered API's name, as the report states it. */
    readonly api: string,
    document: JsonObject,
  ) {
    for (const op of walkOperations(document)) {
      const media = op.requestBody?.media.find((entry) => isJsonMediaType(entry.mediaType.toLowerCase()) && entry.schema !== undefined);
      const bodyMembers = media?.schema ? topLevelMembers(document, media.schema) : [];
      const query = op.parameters.filter((p) => p.in === "query").map((p) => member("query", p.name));
      const headers = op.parameters.filter((p) => p.in === "header").map((p) => member("header", p.name.toLowerCase()));
      const members = new Set([...bodyMembers.map((n) => member("body", n)), ...query, ...headers]);
      this.operations.set(op.operationId, { walked: op, members, exchanges: 0, seen: new Set(), undocumented: new Set(), sent: new Set() });
    }
  }

  /** Counts one answered request: the operation it hit (null when none serves it), its answer's status and what it carried. */
  record(operationId: string | null | undefined, status: number, sent: SentRequest = {}): void {
    this.exchanges++;
    const op = operationId == null ? undefined : this.operations.get(operationId);
    if (!op) {
      this.unmatched++;
      return;
    }
    op.exchanges++;
    const documented = documentedResponseFor(op.walked.responses, status);
    if (documented) op.seen.add(documented.status);
    else if (Number.isInteger(status) && status >= 100 && status <= 999) op.undocumented.add(String(status));
    // Only documented members are kept: memory stays bounded by the description.
    const carried = (name: string) => {
      if (op.members.has(name)) op.sent.add(name);
    };
    for (const name of sent.query ?? []) carried(member("query", name));
    for (const name of sent.headers ?? []) carried(member("header", name.toLowerCase()));
    if (isObject(sent.body)) for (const name of Object.keys(sent.body)) carried(member("body", name));
  }

  /** The coverage so far, in the report format. */
  report(): Coverage {
    const operations: Record<string, OperationCoverage> = {};
    const totals = { operations: 0, exercised: 0, statuses: { documented: 0, covered: 0 }, members: { documented: 0, covered: 0 } };
    for (const [operationId, op] of this.operations) {
      const statuses = op.walked.responses.map((r) => r.status);
      operations[operationId] = {
        method: op.walked.method,
        path: op.walked.path,
        exchanges: op.exchanges,
        statuses: {
          seen: statuses.filter((s) => op.seen.has(s)),
          notSeen: statuses.filter((s) => !op.seen.has(s)),
          undocumented: [...op.undocumented].sort(),
        },
        members: { sent: [...op.members].filter((m) => op.sent.has(m)), notSent: [...op.members].filter((m) => !op.sent.has(m)) },
      };
      totals.operations++;
      if (op.exchanges > 0) totals.exercised++;
      totals.statuses.documented += statuses.length;
      totals.statuses.covered += op.seen.size;
      totals.members.documented += op.members.size;
      totals.members.covered += op.sent.size;
    }
    return { api: this.api, exchanges: this.exchanges, unmatched: this.unmatched, operations, totals };
  }
}

/** Names listed per operation on a terminal; the report lists them all. */
const SHOWN_NAMES = 6;

function shortList(names: string[]): string {
  const shown = names.slice(0, SHOWN_NAMES).join(", ");
  return names.length > SHOWN_NAMES ? `${shown} and ${names.length - SHOWN_NAMES} more` : shown;
}

/**
 * The coverage as a few lines for a terminal: the totals, then one line per operation that left
 * something out (statuses not seen, members not sent, statuses answered that it does not document).
 */
export function formatCoverage(coverage: Coverage): string[] {
  const { totals } = coverage;
  const lines = [
    `coverage: ${totals.exercised} of ${totals.operations} operations exercised, ${totals.statuses.covered} of ${totals.statuses.documented} documented statuses seen, ${totals.members.covered} of ${totals.members.documented} request members sent`,
  ];
  for (const [operationId, op] of Object.entries(coverage.operations)) {
    if (op.exchanges === 0) {
      lines.push(`  ${operationId}: not exercised`);
      continue;
    }
    const parts = [
      op.statuses.notSeen.length > 0 ? `statuses not seen ${op.statuses.notSeen.join(", ")}` : "",
      op.members.notSent.length > 0 ? `members not sent ${shortList(op.members.notSent)}` : "",
      op.statuses.undocumented.length > 0 ? `undocumented statuses answered ${op.statuses.undocumented.join(", ")}` : "",
    ].filter(Boolean);
    if (parts.length > 0) lines.push(`  ${operationId}: ${parts.join("; ")}`);
  }
  if (coverage.unmatched > 0) lines.push(`  ${coverage.unmatched} of ${coverage.exchanges} requests hit no documented operation`);
  return lines;
}
