// Replays what real servers answered (recorded by `conformance <server> --record`) against the
// bundles: (a) every recorded answer is judged with the response validator of its operation and
// status, (b) a recorded acceptance (2xx) or refusal of the input (400) agrees with the contract's
// judgement of the request (request validators plus x-rules), (c) a request without a Bearer
// credential is not served. A disagreement listed in the server's known-differences.json (a newer
// contract than the recorded release, how the server was configured, where the server differs from
// what the contract documents, or a contract fault awaiting its spec change) is expected; a listed
// one that no longer occurs fails, so the list stays true. Each server folder is judged against the
// bundle of the API it implements (SERVICE_OF).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OpenApiValidators, loadBundle, type FieldError } from "../src/index.js";
import { specExportDir } from "./fixture.js";

interface Exchange {
  /** operationId in the bundle; null for a request the contract does not describe. */
  operation: string | null;
  method: string;
  path: string;
  query?: Record<string, unknown>;
  /** Which credential form was sent; its value is never recorded. */
  authorization: "bearer" | "basic" | "none";
  /** Other request headers sent (never a credential), such as `x-api-version`. */
  headers?: Record<string, string>;
  requestBody?: unknown;
  /** A body that is not JSON, sent as it is. */
  requestRaw?: string;
  status: number;
  contentType: string;
  responseBody: unknown;
  /** owner/repo@commit of the server that answered. */
  server: string;
  note: string;
}

type Check = "response" | "verdict" | "auth";

interface KnownDifference {
  operation: string;
  check: Check;
  /** A substring of the disagreement: "<check>: <detail> -- <METHOD> <path> <body>". */
  match: string;
  /**
   * version: the recorded release is older than the contract; configuration: how the server was
   * run; live-differs-from-docs: the server answers otherwise than the contract documents;
   * contract: the contract is wrong (a spec change is due).
   */
  kind: "version" | "configuration" | "live-differs-from-docs" | "contract";
  differs: string;
  why: string;
}

/** The folder the spec package exports its recorded exchanges from (`./recorded/*`), one folder per server. */
const recordedDir = specExportDir("./recorded/*");
const KNOWN_FILE = "known-differences.json";
const KINDS = ["version", "configuration", "live-differs-from-docs", "contract"];

/** The bundle each recorded server implements. */
const SERVICE_OF: Record<string, string> = { firecrawl: "webdata", autumn: "entitlements" };

function serviceOf(server: string): string {
  const service = SERVICE_OF[server];
  if (!service) throw new Error(`recorded/${server}: name the bundle it implements in SERVICE_OF`);
  return service;
}

function serversRecorded(): string[] {
  return readdirSync(recordedDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

function exchangesOf(server: string): Array<Exchange & { file: string }> {
  const dir = path.join(recordedDir, server);
  return readdirSync(dir)
    .filter((file) => file.endsWith(".json") && file !== KNOWN_FILE)
    .sort()
    .flatMap((file) => (JSON.parse(readFileSync(path.join(dir, file), "utf8")) as Exchange[]).map((item) => ({ ...item, file })));
}

function knownOf(server: string): KnownDifference[] {
  try {
    return JSON.parse(readFileSync(path.join(recordedDir, server, KNOWN_FILE), "utf8")) as KnownDifference[];
  } catch {
    return [];
  }
}

/**
 * 400 answers the contract documents as depending on the target's state rather than on the
 * input, so that they are no refusal of a valid request: by operation, the body they have.
 */
const STATE_REFUSALS: Record<string, (body: unknown) => boolean> = {
  // FinalizeBadRequest: `invalid_request` when no live lock has the lock_id.
  finalizeLock: (body) => codeOf(body) === "invalid_request" && /^Lock not found for ID: /.test(messageOf(body)),
  // CheckBadRequest: `invalid_request` for send_event or a lock on a boolean feature, `invalid_inputs` for a lock on another non-consumable one.
  checkAccess: (body) => ["invalid_inputs", "invalid_request"].includes(codeOf(body)) && /send_event|lock/i.test(messageOf(body)) && !/: must be /.test(messageOf(body)),
};

function codeOf(body: unknown): string {
  return typeof body === "object" && body !== null && typeof (body as { code?: unknown }).code === "string" ? (body as { code: string }).code : "";
}

function messageOf(body: unknown): string {
  return typeof body === "object" && body !== null && typeof (body as { message?: unknown }).message === "string" ? (body as { message: string }).message : "";
}

const shown = (problems: FieldError[]) => problems.map((p) => `${p.in} ${p.path.join(".")}: ${p.message}`).join("; ");

function requestLine(item: Exchange): string {
  const query = item.query ? `?${new URLSearchParams(Object.entries(item.query).map(([k, v]) => [k, String(v)]))}` : "";
  const body = item.requestRaw ?? (item.requestBody === undefined ? "" : JSON.stringify(item.requestBody));
  const headers = Object.entries(item.headers ?? {}).map(([name, value]) => `${name}: ${value} `).join("");
  return `${item.method} ${item.path}${query} ${headers}${body}`.trimEnd();
}

/** Every way an exchange disagrees with the contract, each as "<check>: <detail> -- <request>". */
function disagreements(validators: OpenApiValidators, item: Exchange): Array<{ check: Check; text: string }> {
  const operation = validators.listOperations().find((op) => op.operationId === item.operation);
  if (!operation) throw new Error(`no operation ${item.operation}`);
  const found: Array<{ check: Check; detail: string }> = [];

  const documented = validators.documentedResponse(operation.method, operation.path, item.status);
  const mediaTypes = documented ? Object.keys(documented.content) : [];
  if (!documented) found.push({ check: "response", detail: `status ${item.status} is not documented` });
  else if (mediaTypes.length > 0 && !mediaTypes.some((type) => item.contentType.toLowerCase().startsWith(type))) {
    found.push({ check: "response", detail: `${item.status} Content-Type ${item.contentType.split(";")[0]} is not documented (${mediaTypes.join(", ")})` });
  } else {
    const validate = validators.response(operation.method, operation.path, item.status, item.contentType);
    if (validate && !validate(item.responseBody)) {
      const errors = (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`).join("; ");
      found.push({ check: "response", detail: `${item.status} body does not match: ${errors}` });
    }
  }

  const query = Object.fromEntries(Object.entries(item.query ?? {}).map(([k, v]) => [k, String(v)]));
  // Headers the exchange names are judged; the credential is never recorded, so its absence is not.
  const sent = new Set(Object.keys(item.headers ?? {}).map((name) => name.toLowerCase()));
  const problems =
    item.requestRaw !== undefined
      ? [{ in: "body", path: [], keyword: "json", params: {}, message: "is not JSON" } as FieldError]
      : validators
          .request(operation.method, operation.path)
          .validate({ path: item.path, query, headers: item.headers ?? {}, body: item.requestBody })
          .filter((problem) => problem.in !== "header" || sent.has(String(problem.path[0] ?? "").toLowerCase()));
  const accepted = item.status >= 200 && item.status < 300;
  if (accepted && problems.length > 0) found.push({ check: "verdict", detail: `live accepted (${item.status}), the contract refuses: ${shown(problems)}` });
  const stateRefusal = item.status === 400 && (STATE_REFUSALS[item.operation ?? ""]?.(item.responseBody) ?? false);
  if (item.status === 400 && problems.length === 0 && !stateRefusal) found.push({ check: "verdict", detail: `live refused (400), the contract accepts` });

  if (accepted && item.authorization !== "bearer") found.push({ check: "auth", detail: `live served (${item.status}) a request with ${item.authorization === "none" ? "no credential" : "a Basic credential"}` });

  return found.map(({ check, detail }) => ({ check, text: `${check}: ${detail} -- ${requestLine(item)}` }));
}

const servers = serversRecorded();

it("the recorded exchanges hold at least 40 answers of real servers, with no credential in them", () => {
  const all = servers.flatMap(exchangesOf);
  expect(all.length).toBeGreaterThanOrEqual(40);
  for (const item of all) {
    expect(item.server, item.file).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
    expect(["bearer", "basic", "none"], item.file).toContain(item.authorization);
    const text = JSON.stringify(item);
    expect(text, item.file).not.toMatch(/(Bearer|Basic) [\w+/=-]{16,}|fc-[0-9a-z]{20,}|am_sk_\w{8,}/);
  }
});

describe.each(servers)("%s: recorded answers agree with the contract, or differ as listed", (server) => {
  const validators = new OpenApiValidators(loadBundle(serviceOf(server)));
  const exchanges = exchangesOf(server);
  const known = knownOf(server);
  const outside = exchanges.filter((item) => item.operation === null);
  const judged = exchanges.filter((item) => item.operation !== null);
  const listed = (operation: string, found: { check: Check; text: string }) =>
    known.find((entry) => entry.operation === operation && entry.check === found.check && found.text.includes(entry.match));
  /** Each judged exchange with its disagreements, worked out once so that every test below sees them all. */
  const results = judged.map((item) => ({ item, found: disagreements(validators, item) }));

  it("every known difference names its operation, check, kind, what differs and why", () => {
    for (const entry of known) {
      expect(["response", "verdict", "auth"], entry.match).toContain(entry.check);
      expect(KINDS, entry.match).toContain(entry.kind);
      expect(validators.listOperations().map((op) => op.operationId), entry.match).toContain(entry.operation);
      for (const member of [entry.match, entry.differs, entry.why]) expect(member.length, entry.match).toBeGreaterThan(0);
    }
  });

  it.each(results.map(({ item, found }, index) => [`${item.file} #${index} ${item.status} ${requestLine(item).slice(0, 120)}`, item, found] as const))(
    "%s",
    (_name, item, found) => {
      const unlisted = found.filter((one) => !listed(item.operation!, one)).map((one) => one.text);
      expect(unlisted, `${item.note} (${item.server})`).toEqual([]);
    },
  );

  it("every listed known difference still occurs", () => {
    const stale = known.filter((entry) => !results.some(({ item, found }) => found.some((one) => listed(item.operation!, one) === entry)));
    expect(stale.map((entry) => `${entry.operation} ${entry.check}: ${entry.match}`)).toEqual([]);
  });

  it("requests recorded as outside the contract are still outside it", () => {
    for (const item of outside) {
      expect(validators.findOperation(item.method, item.path), `${item.method} ${item.path} is now described: record it under its operation`).toBeUndefined();
    }
  });
});
