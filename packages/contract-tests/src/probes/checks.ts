import { randomUUID } from "node:crypto";
import { fillPath, type WalkedOperation } from "@api-contracts/contract-core";
import type { Contract, Verdict } from "../judge.js";
import { fail, pass, warn, type Check, type CheckContext, type Outcome, type Severity } from "../checks/types.js";
import { UnreachableError } from "../http.js";
import { reproduction, sendRaw, stillAccepts, stillAnswers, type Connection, type Piece, type RawAnswer, type WireOutcome } from "./wire.js";

/** What a probe needs to know of one operation. */
type ProbedOperation = ReturnType<typeof probedOperation>;

/** What a probe's outcome means for clients (a failure harms them, a warning is hygiene), and why in words a reader can act on. */
type Judgement = { severity: Severity; reason: string };

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
  /** The body never arrives whole: the request stays unfinished, and the connection after an answer may wait for the rest. */
  unfinished?: boolean;
  /** A status a parser answers this request with that is no harm, though the contract does not document it (505 for a broken version). */
  parserStatus?: number;
  /** Only for operations that take a request body. */
  needsBody?: boolean;
  /** Mostly waiting on the server: run beside the other waiting probes. */
  waits?: boolean;
  /** Nothing came back within --timeout. */
  whenSilent: Judgement;
  /** The server closed or reset the connection without answering. */
  whenCut: Judgement;
  /** The bytes, with `headers` (the run's own) among the header lines. */
  request(op: ProbedOperation, url: URL, headers: Piece[]): Piece[];
}

/** How a complete but malformed request's silence and cut are judged. */
const MALFORMED: Pick<Probe, "whenSilent" | "whenCut"> = {
  // Left unanswered: a client waits for its own timeout, and the server holds a connection for nothing.
  whenSilent: { severity: "failure", reason: "the request was complete, yet unanswered: a client waits on it until its own timeout" },
  // Closed without an answer: the client learns nothing, and loses nothing it could have had.
  whenCut: {
    severity: "warning",
    reason: "the connection was closed without an answer; no conforming client sends this request, but a 400 in the API's error shape would tell a broken one why",
  },
};

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

function withBody(op: ProbedOperation, url: URL, headers: Piece[], framing: string, body: string): Piece[] {
  return [{ text: `${requestLine(op, url)}Host: ${url.host}\r\nAuthorization: Bearer ` }, { key: true }, { text: "\r\n" }, ...headers, { text: `Content-Type: application/json\r\n${framing}\r\n${body}` }];
}

export const PROBES: readonly Probe[] = [
  {
    name: "http-control-byte",
    sends: "a header value holding a control byte (0x01)",
    refusal: 400,
    mayServe: true,
    ...MALFORMED,
    request: (op, url, headers) => wellFormed(op, url, requestLine(op, url), [...headers, { text: "X-Contract-Probe: a\u0001b\r\n" }]),
  },
  {
    name: "http-request-line",
    sends: "a request line with a word after the HTTP version",
    refusal: 400,
    mayServe: false,
    parserStatus: 505,
    ...MALFORMED,
    request: (op, url, headers) => wellFormed(op, url, requestLine(op, url, "HTTP/1.1 x"), headers),
  },
  {
    name: "http-framing-conflict",
    sends: "`Content-Length` and `Transfer-Encoding: chunked` together, with a chunked `{}`",
    refusal: 400,
    mayServe: true,
    mustClose: true,
    needsBody: true,
    ...MALFORMED,
    request: (op, url, headers) => withBody(op, url, headers, "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n", "2\r\n{}\r\n0\r\n\r\n"),
  },
  {
    name: "http-header-overflow",
    sends: `a header section of over 64 KiB (one ${HEADER_OVERFLOW_BYTES}-byte header)`,
    refusal: 400,
    mayServe: true,
    ...MALFORMED,
    request: (op, url, headers) => wellFormed(op, url, requestLine(op, url), [...headers, { text: "X-Contract-Probe-Padding: " }, { fill: "a", count: HEADER_OVERFLOW_BYTES }, { text: "\r\n" }]),
  },
  {
    name: "http-body-over-limit",
    sends: `\`Content-Length: ${OVER_LIMIT_BYTES}\` (1 GiB) and the first two bytes of the body`,
    refusal: 413,
    mayServe: false,
    unfinished: true,
    needsBody: true,
    whenSilent: {
      severity: "warning",
      reason: "no early 413: the server waits for the body before refusing it, which costs a client sending a large body its upload, not its answer",
    },
    whenCut: {
      severity: "failure",
      reason: "the connection was cut instead of answering: a client still sending its body never reads the 413 (EPIPE or ECONNRESET), and cannot tell a body too large from a network fault",
    },
    request: (op, url, headers) => withBody(op, url, headers, `Content-Length: ${OVER_LIMIT_BYTES}\r\n`, '{"'),
  },
  {
    name: "http-stalled-body",
    sends: `\`Content-Length: ${STALLED_LENGTH}\`, two bytes of the body, then nothing`,
    refusal: 408,
    mayServe: false,
    unfinished: true,
    needsBody: true,
    waits: true,
    whenSilent: {
      severity: "warning",
      reason: "the server's request deadline is longer than --timeout, or it has none (rerun with a --timeout above its deadline to tell which)",
    },
    whenCut: {
      severity: "warning",
      reason: "the connection was closed without a 408; the client had stopped sending, and a 408 would tell it the request may be retried",
    },
    request: (op, url, headers) => withBody(op, url, headers, `Content-Length: ${STALLED_LENGTH}\r\n`, '{"'),
  },
];

function probedOperation(contract: Contract, ref: WalkedOperation) {
  return {
    ref,
    // Every parameter filled, relative to the base URL.
    path: fillPath(ref.path, {}, () => randomUUID()),
    hasBody: contract.requestBodySchema(ref.operationId) !== undefined,
    documented: ref.responses.map((response) => response.status),
  };
}

/** What the status and body of a probe's answer mean: the refusal expected, a documented service, harm (failure) or hygiene (warning). */
function judgeStatus(probe: Probe, answer: RawAnswer, verdict: Verdict): Outcome {
  const { status } = answer;
  const request = probe.unfinished ? "an unfinished request" : "a malformed request";
  if (status >= 500 && status !== probe.parserStatus) {
    return fail(`${status} to ${request}: a 5xx tells clients and their retries that the server failed, not the request${verdict.ok ? "" : ` (${verdict.reason})`}`);
  }
  if (status >= 200 && status < 300) {
    if (!probe.mayServe) return fail(`${status} to ${request}: the server acted on a request no client sent whole and well formed`);
    return verdict.ok ? pass(`served as a well-formed request: ${verdict.reason}`) : fail(`served as a well-formed request, but the answer breaks the contract: ${verdict.reason}`);
  }
  if (status === probe.refusal && verdict.ok) return pass(`refused: ${verdict.reason}`);
  if (probe.mayServe && verdict.ok) return pass(`served as a well-formed request: ${verdict.reason}`);
  const early = probe.refusal === 413 && status === 408 ? "no early 413: the server waited for the body, then " : "";
  const which = status === probe.refusal ? verdict.reason : `expected ${probe.refusal}, got ${verdict.ok ? `a documented ${status}` : verdict.reason}`;
  return warn(`${early}${which}; no conforming client sends this request, and the answer is still a refusal`);
}

/** What the connection did after the answer; undefined when that is as it should be. */
function judgeConnection(probe: Probe, connection: Connection): string | undefined {
  if (connection === "broken") return "what followed on the connection is not HTTP";
  if (probe.unfinished) {
    // The rest of the body is still due: a connection waiting for it is as it should be.
    if (connection === "reusable") return "the connection stayed open and served the next bytes as a new request: the rest of a client's body would be read as requests";
    return undefined;
  }
  if (connection === "hanging") return "the connection then stayed open without answering another request: a client that reuses it waits forever";
  if (probe.mustClose && connection === "reusable") return "the connection stayed open and served the next bytes on it as a request: request smuggling (RFC 9112, section 6.1), where a request framed two ways must close its connection";
  return undefined;
}

/** Judges what one probe got back: an answer within the timeout, then a connection closed or usable. */
function judgeProbe(probe: Probe, op: ProbedOperation, contract: Contract, outcome: Exclude<WireOutcome, { kind: "unreachable" }>): Outcome {
  if (outcome.kind === "silent" || outcome.kind === "cut") {
    const judged = outcome.kind === "silent" ? probe.whenSilent : probe.whenCut;
    const what = outcome.kind === "silent" ? `no ${probe.refusal} within ${outcome.why.replace(/^nothing within /, "")}` : outcome.why;
    return { ok: false, severity: judged.severity, reason: `${what}: ${judged.reason}` };
  }
  if (outcome.kind === "unfinished-answer") return fail(`${outcome.why}: an answer that never ends holds the client reading it`);
  const { answer, connection } = outcome;
  const verdict = contract.judge({ method: op.ref.method.toUpperCase(), path: op.path, status: answer.status, contentType: answer.contentType, bodyText: answer.bodyText });
  const judged = judgeStatus(probe, answer, verdict);
  const broken = judgeConnection(probe, connection);
  if (broken) return fail(judged.ok ? `${answer.status}, but ${broken}` : `${judged.reason}; and ${broken}`);
  if (!judged.ok) return judged;
  const after = connection === "closed" ? "closed" : connection === "reusable" ? "still usable" : "left waiting for the rest of the body";
  return pass(`${judged.reason}; the connection was then ${after}`);
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
      const pieces = probe.request(op, url, Object.entries(ctx.wire.headers ?? {}).map(([name, value]) => ({ text: `${name}: ${value}\r\n` })));
      const method = op.ref.method.toUpperCase();
      const outcome = await sendRaw(ctx.wire, method, pieces);
      if (outcome.kind === "unreachable") throw new UnreachableError(`${method} ${url.origin}: ${outcome.why}`);
      if (ctx.wire.deadline?.aborted) throw new UnreachableError(`${method} ${url.origin}: the run's deadline passed (--max-time) during the ${probe.name} probe`);
      if (outcome.kind === "answer") ctx.coverage?.record(op.ref.operationId, outcome.answer.status);
      // On a line of its own under the result, whole, so that it can be copied however long it is.
      const evidence = [`reproduce: ${reproduction(pieces, url, Math.ceil(ctx.wire.timeoutMs / 1000) + 1)}`];
      // A request that takes the server down harms every client after it. A fresh connection tells a
      // server that went away; where silence would only warn, a plain request also tells one that hangs
      // (a silent complete request fails anyway, and the probe after it meets the hang).
      const silenceWarns = outcome.kind === "silent" && probe.whenSilent.severity === "warning";
      const gone = (await stillAccepts(ctx.wire)) ?? (silenceWarns ? await stillAnswers(ctx.wire) : undefined);
      if (gone) return { ok: false, targetGone: true, reason: `the target stopped answering after this probe: ${gone}`, evidence };
      const judged = judgeProbe(probe, op, contract, outcome);
      return judged.ok ? judged : { ...judged, evidence };
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
