import { closeSync, openSync, writeSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { ERROR_LIMIT, describeProblem, truncate, type KnownDifference } from "@api-contracts/contract-core";
import type { RuleError } from "./judge.js";

/** What every report line begins with. */
interface LineHead {
  /** ISO 8601. */
  time: string;
  service: string;
}

/** One line of the report: a request or a response that broke the contract, or could not be judged. */
export interface Violation extends LineHead {
  /** Null when no documented operation serves the method and path. */
  operationId: string | null;
  method: string;
  /** The request path, without its query (which may carry credentials). */
  path: string;
  /** The status the client received. */
  status: number;
  /** `delivery`: a webhook call relayed with `webhooks` (its operationId is the webhook's, its status what the receiver answered). */
  direction: "request" | "response" | "delivery";
  errors: RuleError[];
  /** Present, and false, on a line about a body larger than the judging limit: it is not a violation. */
  judged?: false;
  /** Present when known differences (`--known-differences`) explain every error: why each is accepted. Not counted as a violation. */
  known?: string[];
}

/** A report line for an exchange a faults rule fired on: what the proxy did in the upstream's place. Not a violation. */
export interface InjectedLine extends LineHead, Pick<Violation, "method" | "path"> {
  operationId: string;
  injected: {
    rule: string;
    latencyMs: number;
    fault?: "reset" | "hang" | "slow-body";
    /** The status of the documented answer given in the upstream's place. */
    status?: number;
  };
}

/** The report's last lines, written when the proxy closes: a known difference that no violation matched. */
export interface StaleLine extends LineHead {
  stale: KnownDifference;
}

/**
 * The text a known difference's `reason` is looked for in, for one error of a violation:
 * `<in><pointer> <message>` for a request or a webhook call (`body/url is required`), and the status
 * the upstream answered before it for a response (`400 body must have required property 'code'`).
 */
export function knownReason(direction: Violation["direction"], status: number, error: RuleError): string {
  return direction === "response" ? `${status} ${describeProblem(error)}` : describeProblem(error);
}

/** Longest report line, in bytes of JSON; errors are dropped from the end to stay below it. */
const REPORT_LINE_LIMIT = 16 * 1024;
const MESSAGE_LENGTH = 300;
const POINTER_LENGTH = 200;
const PATH_LENGTH = 500;
/** Shorter values are too likely to occur by chance to be worth hiding. */
const SHORTEST_SECRET = 6;

/** The credentials a request carries: every value that must never be written out. */
export function secretsOf(headers: IncomingHttpHeaders): string[] {
  // An authorization's whole value, and its credentials without the scheme.
  const authorizations = [headers.authorization, headers["proxy-authorization"]].filter((value) => value !== undefined);
  const credentials = authorizations.flatMap((value) => [value, value.replace(/^\S+\s+/, "")]);
  const cookies = (headers.cookie ?? "").split(";").map((pair) => pair.slice(pair.indexOf("=") + 1));
  const values = [...credentials, ...[headers["x-api-key"] ?? []].flat(), ...cookies].map((value) => value.trim());
  return values.filter((value) => value.length >= SHORTEST_SECRET);
}

/** What the API's keys and bearer tokens look like, to hide them in text beside the request's own credentials. */
export function credentialShapes(keyPrefix: string): RegExp {
  const prefix = keyPrefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![A-Za-z0-9])${prefix}[A-Za-z0-9_\\-]+|\\bBearer\\s+[A-Za-z0-9\\-._~+/]+=*`, "gi");
}

/** A violation cut to the report's bounds, its texts redacted. */
export function boundedViolation(violation: Violation, redact: (text: string) => string): Violation {
  const errors = violation.errors.slice(0, ERROR_LIMIT).map((e) => ({
    in: e.in,
    pointer: truncate(redact(e.pointer), POINTER_LENGTH),
    keyword: truncate(e.keyword, 40),
    message: truncate(redact(e.message), MESSAGE_LENGTH),
  }));
  const bounded: Violation = { ...violation, path: boundedPath(redact(violation.path)), method: truncate(violation.method, 20), errors };
  if (violation.known) bounded.known = violation.known.slice(0, ERROR_LIMIT).map((why) => truncate(why, MESSAGE_LENGTH));
  while (bounded.errors.length > 1 && Buffer.byteLength(JSON.stringify(bounded)) > REPORT_LINE_LIMIT) bounded.errors.pop();
  return bounded;
}

/** A request path, already redacted, cut to the report's bounds. */
export const boundedPath = (path: string) => truncate(path, PATH_LENGTH);

/** Appends report lines to a file as they happen; each write is whole before the answer goes out. */
export class ReportFile {
  private fd: number | undefined;

  constructor(file: string) {
    this.fd = openSync(file, "a");
  }

  write(line: Violation | StaleLine | InjectedLine): void {
    if (this.fd !== undefined) writeSync(this.fd, `${JSON.stringify(line)}\n`);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
