import { randomUUID } from "node:crypto";
import type { Contract, OperationRef } from "../judge.js";
import { fail, pass, type Check, type CheckContext, type Outcome } from "../checks/types.js";
import { UnreachableError } from "../http.js";
import { reproduction, sendRaw, type Piece, type WireOutcome } from "./wire.js";

/** What a probe needs to know of one operation. */
interface ProbedOperation {
  ref: OperationRef;
  /** The path with every parameter filled, relative to the base URL. */
  path: string;
  hasBody: boolean;
  documented: string[];
}

/** One request that `fetch` will not send, and what the contract expects in return. */
export interface Probe {
  name: string;
  /** What is sent, in words (the kit's README table quotes it). */
  sends: string;
  /** The status of a refusal the contract documents for it. */
  refusal: number;
  /** Whether a server may also serve the request as if it were well formed (RFC 9110 and 9112 let it). */
  mayServe: boolean;
  /** Whether the server must close the connection after answering, whatever it answered. */
  mustClose?: boolean;
  /** Only for operations that take a request body. */
  needsBody?: boolean;
  /** Mostly waiting on the server: run beside the other waiting probes. */
  waits?: boolean;
  request(op: ProbedOperation, url: URL): Piece[];
}

/** A header section larger than this is refused by every common server (node: 16 KiB, nginx: 8 KiB lines). */
const HEADER_OVERFLOW_BYTES = 64 * 1024 + 1024;
/** Larger than any body limit a JSON API sets; only the headers and two bytes are sent. */
const OVER_LIMIT_BYTES = 1024 * 1024 * 1024;
/** A body announced at this length, of which only the first two bytes are sent. */
const STALLED_LENGTH = 64;

function requestLine(op: ProbedOperation, url: URL, version = "HTTP/1.1"): string {
  return `${op.ref.method.toUpperCase()} ${url.pathname.replace(/\/+$/, "")}${op.path} ${version}\r\n`;
}

/** Host, the key and, for an operation with a body, a JSON body of `{}`: a request a server can serve. */
function wellFormed(op: ProbedOperation, url: URL, line: string, extra: Piece[] = []): Piece[] {
  const head: Piece[] = [{ text: `${line}Host: ${url.host}\r\nAuthorization: Bearer ` }, { key: true }, { text: "\r\n" }, ...extra];
  return op.hasBody ? [...head, { text: "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}" }] : [...head, { text: "\r\n" }];
}

function withBody(op: ProbedOperation, url: URL, framing: string, body: string): Piece[] {
  return [{ text: `${requestLine(op, url)}Host: ${url.host}\r\nAuthorization: Bearer ` }, { key: true }, { text: `\r\nContent-Type: application/json\r\n${framing}\r\n${body}` }];
}

export const PROBES: readonly Probe[] = [
  {
    name: "http-control-byte",
    sends: "a header value holding a control byte (0x01)",
    refusal: 400,
    mayServe: true,
    request: (op, url) => wellFormed(op, url, requestLine(op, url), [{ text: "X-Contract-Probe: a\u0001b\r\n" }]),
  },
  {
    name: "http-request-line",
    sends: "a request line with a word after the HTTP version",
    refusal: 400,
    mayServe: false,
    request: (op, url) => wellFormed(op, url, requestLine(op, url, "HTTP/1.1 x")),
  },
  {
    name: "http-framing-conflict",
    sends: "`Content-Length` and `Transfer-Encoding: chunked` together, with a chunked `{}`",
    refusal: 400,
    mayServe: true,
    mustClose: true,
    needsBody: true,
    request: (op, url) => withBody(op, url, "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n", "2\r\n{}\r\n0\r\n\r\n"),
  },
  {
    name: "http-header-overflow",
    sends: `a header section of over 64 KiB (one ${HEADER_OVERFLOW_BYTES}-byte header)`,
    refusal: 400,
    mayServe: true,
    request: (op, url) => wellFormed(op, url, requestLine(op, url), [{ text: "X-Contract-Probe-Padding: " }, { fill: "a", count: HEADER_OVERFLOW_BYTES }, { text: "\r\n" }]),
  },
  {
    name: "http-body-over-limit",
    sends: `\`Content-Length: ${OVER_LIMIT_BYTES}\` (1 GiB) and the first two bytes of the body`,
    refusal: 413,
    mayServe: false,
    needsBody: true,
    request: (op, url) => withBody(op, url, `Content-Length: ${OVER_LIMIT_BYTES}\r\n`, '{"'),
  },
  {
    name: "http-stalled-body",
    sends: `\`Content-Length: ${STALLED_LENGTH}\`, two bytes of the body, then nothing`,
    refusal: 408,
    mayServe: false,
    needsBody: true,
    waits: true,
    request: (op, url) => withBody(op, url, `Content-Length: ${STALLED_LENGTH}\r\n`, '{"'),
  },
];

function probedOperation(contract: Contract, ref: OperationRef): ProbedOperation {
  return {
    ref,
    path: ref.pathTemplate.replace(/\{[^}]+\}/g, () => randomUUID()),
    hasBody: contract.requestBodySchema(ref.operationId) !== undefined,
    documented: contract.documentedStatuses(ref.operationId),
  };
}

/** Judges what one probe got back: a documented answer within the timeout, then a connection closed or usable. */
function judgeProbe(probe: Probe, op: ProbedOperation, contract: Contract, outcome: WireOutcome): Outcome {
  if (outcome.kind !== "answer") {
    // Only the server's own deadline ends a stalled request: say which bound was too short.
    const hint = probe.waits && outcome.why.includes("--timeout") ? " (a server whose request deadline is longer than --timeout fails this too: rerun with --timeout above it)" : "";
    return fail(`expected a documented ${probe.refusal} in the API's error shape, got ${outcome.why}${hint}`);
  }
  const { answer, connection } = outcome;
  const verdict = contract.judge({ method: op.ref.method.toUpperCase(), path: op.path, status: answer.status, contentType: answer.contentType, bodyText: answer.bodyText });
  const refused = answer.status === probe.refusal;
  if (!refused && !probe.mayServe) return fail(`expected ${probe.refusal} in the API's error shape, got ${answer.status}${verdict.ok ? "" : ` (${verdict.reason})`}`);
  if (!verdict.ok) return fail(refused ? verdict.reason : `neither refused with ${probe.refusal} nor answered as documented: ${verdict.reason}`);
  if (connection === "hanging") return fail(`${answer.status} as documented, but the connection then stayed open without answering another request`);
  if (connection === "broken") return fail(`${answer.status} as documented, but what followed on the connection is not HTTP`);
  if (probe.mustClose && connection !== "closed") return fail(`${answer.status} as documented, but the connection stayed open: after a request framed two ways it must close (RFC 9112, section 6.1)`);
  const how = refused ? `refused: ${verdict.reason}` : `served as a well-formed request: ${verdict.reason}`;
  return pass(`${how}; the connection was then ${connection === "closed" ? "closed" : "still usable"}`);
}

function probeCheck(contract: Contract, probe: Probe, op: ProbedOperation): Check {
  return {
    operation: op.ref.operationId,
    name: probe.name,
    level: "http",
    what: `${probe.sends}: ${probe.refusal} in the API's error shape${probe.mayServe ? " or a documented answer" : ""}, then the connection closed or usable`,
    ...(probe.waits ? { waits: true } : {}),
    async run(ctx: CheckContext): Promise<Outcome> {
      const url = ctx.wire.url;
      const pieces = probe.request(op, url);
      const outcome = await sendRaw(ctx.wire, op.ref.method.toUpperCase(), pieces);
      if (outcome.kind === "unreachable") throw new UnreachableError(`${op.ref.method.toUpperCase()} ${url.origin}: ${outcome.why}`);
      const judged = judgeProbe(probe, op, contract, outcome);
      if (judged.ok) return judged;
      return fail(`${judged.reason} -- reproduce: ${reproduction(pieces, url, Math.ceil(ctx.wire.timeoutMs / 1000) + 1)}`);
    },
  };
}

/** The probes that apply to each operation: those whose refusal the operation documents. */
export function httpProbes(contract: Contract): Check[] {
  const checks: Check[] = [];
  for (const ref of contract.listOperations()) {
    const op = probedOperation(contract, ref);
    for (const probe of PROBES) {
      if (probe.needsBody && !op.hasBody) continue;
      if (!op.documented.includes(String(probe.refusal)) && !op.documented.includes("4XX")) continue;
      checks.push(probeCheck(contract, probe, op));
    }
  }
  return checks;
}
