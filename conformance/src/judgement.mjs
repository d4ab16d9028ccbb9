// How a recorded exchange with a real server is judged, one implementation for a run
// (`conformance <server>`) and for the replay of its records. Each exchange and each crawl's webhook
// calls are judged by contract-core (ExchangeJudge, judgeJobCalls), as the kit and the proxy judge
// them; what is conformance's own is the record format, which disagreements it asks an accepted
// difference for (an acceptance or a refusal the contract's verdict does not share, a request
// served without a Bearer credential) and how it reports them. An entry that explains nothing is
// stale, and a failure too, so that the list stays true.
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { ExchangeJudge, KnownDifferences, OpenApiValidators, parseKnownDifferences, describeFinding, jobEventsOf, judgeJobCalls, loadBundle, summarizeAnswer, summarizeProblems, webhookSubscription } from "@api-contracts/contract-core";

const require = createRequire(import.meta.url);

/** The file of a record folder that lists its accepted differences (kept when a run records). */
export const KNOWN_FILE = "known-differences.json";
/** The file of crawls started with a webhook: each crawl's start (an exchange) and the deliveries it received. */
export const DELIVERIES_FILE = "webhook-deliveries.json";
/**
 * Made up for the runs, a key of nothing: the secret a release that signs its deliveries is given
 * (self-hosted: SELF_HOSTED_WEBHOOK_HMAC_SECRET), and the one the signature is checked with.
 */
export const WEBHOOK_SECRET = "conformance-webhook-secret";
/** The checks an accepted difference may name: of an exchange, then of a crawl's deliveries. */
const CHECKS = ["response", "verdict", "auth", "delivery-schema", "delivery-order", "delivery-events", "delivery-id", "delivery-metadata", "delivery-headers", "delivery-signature"];
/**
 * version: the recorded release is older than the contract; configuration: how the server was
 * run; live-differs-from-docs: the server answers otherwise than the contract documents;
 * contract: the contract is wrong (a spec change is due).
 */
const KINDS = ["version", "configuration", "live-differs-from-docs", "contract"];

const textOf = (body, member) => (typeof body?.[member] === "string" ? body[member] : "");

/**
 * The servers whose records are judged: the bundle each implements, and the 400 answers that
 * bundle documents as depending on the target's state rather than on the input (no refusal of a
 * valid request), by operation.
 */
export const RECORDED_SERVERS = {
  firecrawl: { service: "webdata", stateRefusals: {} },
  autumn: {
    service: "entitlements",
    stateRefusals: {
      // FinalizeBadRequest: `invalid_request` when no live lock has the lock_id.
      finalizeLock: (body) => textOf(body, "code") === "invalid_request" && /^Lock not found for ID: /.test(textOf(body, "message")),
      // CheckBadRequest: `invalid_request` for send_event or a lock on a boolean feature, `invalid_inputs` for a lock on another non-consumable one.
      checkAccess: (body) => ["invalid_inputs", "invalid_request"].includes(textOf(body, "code")) && /send_event|lock/i.test(textOf(body, "message")) && !/: must be /.test(textOf(body, "message")),
    },
  },
};

/** The folder the spec package exports its records from (`./recorded/*`): one folder per server. */
export function recordedDir() {
  const manifest = require.resolve("@api-contracts/spec/package.json");
  const exported = JSON.parse(readFileSync(manifest, "utf8")).exports["./recorded/*"];
  if (!exported) throw new Error("@api-contracts/spec exports no ./recorded/*");
  return path.join(path.dirname(manifest), exported.replace("/*", ""));
}

/** The servers with a record folder. */
export function serversRecorded(dir = recordedDir()) {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** Whether a file of a record folder holds exchanges (one JSON array per operation). */
function isExchangeFile(file) {
  return file.endsWith(".json") && file !== KNOWN_FILE && file !== DELIVERIES_FILE;
}

/** The exchanges of a record folder, each with the file it came from. */
export function readExchanges(folder) {
  return readdirSync(folder)
    .filter(isExchangeFile)
    .sort()
    .flatMap((file) => JSON.parse(readFileSync(path.join(folder, file), "utf8")).map((item) => ({ ...item, file })));
}

/** The JSON of a file of a record folder; an empty list when the folder has no such file. */
function readListOf(folder, file) {
  try {
    return JSON.parse(readFileSync(path.join(folder, file), "utf8"));
  } catch (error) {
    if (error.code === "ENOENT") return [];
    throw new Error(`${path.join(folder, file)}: ${error.message}`);
  }
}

/** The crawls with a webhook of a record folder (`{start, deliveries}` each); none when it has no such file. */
export function readWebhookCrawls(folder) {
  return readListOf(folder, DELIVERIES_FILE);
}

/** What a record folder holds: its exchanges and its crawls with a webhook. */
export function readRecords(folder) {
  return { exchanges: readExchanges(folder), webhookCrawls: readWebhookCrawls(folder) };
}

/** The accepted differences of a record folder; none when it has no list. */
export function readKnown(folder) {
  return readListOf(folder, KNOWN_FILE);
}

/** The recorded request's target: its path and query. */
const targetOf = (item) => (item.query ? `${item.path}?${new URLSearchParams(item.query)}` : item.path);
/** The recorded request's body as sent; undefined when it had none. */
const sentOf = (item) => item.requestRaw ?? (item.requestBody === undefined ? undefined : JSON.stringify(item.requestBody));

/** The request of an exchange on one line: method, path, query, headers and body. */
export function requestLine(item) {
  const headers = Object.entries(item.headers ?? {}).map(([name, value]) => `${name}: ${value} `).join("");
  return `${item.method} ${targetOf(item)} ${headers}${sentOf(item) ?? ""}`.trimEnd();
}

/** A credential in the text of an exchange: a Bearer or Basic value, or a key of either API. */
const CREDENTIAL = /(Bearer|Basic) [\w+/=-]{16,}|fc-[0-9a-z]{20,}|am_sk_\w{8,}/;

/**
 * The body of a recorded answer as it came: JSON is recorded parsed, anything else (a JSON
 * Content-Type over text that does not parse included) as its text. No operation answers a bare
 * JSON string, the one value this reading would take for text.
 */
export function answerText(item) {
  return typeof item.responseBody === "string" ? item.responseBody : JSON.stringify(item.responseBody ?? null);
}

/** The recorded request as contract-core's judgement takes it: target, headers and body text. */
function requestOf(item) {
  const sent = sentOf(item);
  // The recorder sends its bodies as JSON and names other headers only where they matter.
  const headers = { ...(sent === undefined ? {} : { "content-type": "application/json" }), ...(item.headers ?? {}) };
  return { method: item.method, target: targetOf(item), headers, ...(sent === undefined ? {} : { bodyText: sent }) };
}

/**
 * Every way one exchange disagrees with the contract, each as `{check, text: "<check>: <detail> --
 * <request>"}`; the detail lists every problem, so that a known difference can name any of them.
 */
export function disagreements(judge, item, stateRefusals = {}) {
  const operation = judge.validators.listOperations().find((op) => op.operationId === item.operation);
  if (!operation) throw new Error(`no operation ${item.operation}`);
  const found = [];

  const answer = judge.answer(operation, item.method, { status: item.status, contentType: item.contentType || undefined, bodyText: answerText(item) });
  if (answer.problems.length > 0) found.push({ check: "response", detail: summarizeAnswer(item.status, answer.problems, Infinity) });

  const { problems } = judge.request(requestOf(item));
  const accepted = item.status >= 200 && item.status < 300;
  if (accepted && problems.length > 0) found.push({ check: "verdict", detail: `live accepted (${item.status}), the contract refuses: ${summarizeProblems(problems, Infinity)}` });
  const stateRefusal = item.status === 400 && (stateRefusals[item.operation]?.(item.responseBody) ?? false);
  if (item.status === 400 && problems.length === 0 && !stateRefusal) found.push({ check: "verdict", detail: "live refused (400), the contract accepts" });

  if (accepted && item.authorization !== "bearer") found.push({ check: "auth", detail: `live served (${item.status}) a request with ${item.authorization === "none" ? "no credential" : "a Basic credential"}` });

  return found.map(({ check, detail }) => ({ check, text: `${check}: ${detail} -- ${requestLine(item)}` }));
}

/** Conformance's check for what a contract-core finding on a job's calls is about: a wrong method is a fault of the delivery's schema. */
const deliveryCheckOf = (concern) => `delivery-${concern === "method" ? "schema" : concern}`;

/** The `type` a delivery's body names; undefined when it names none. */
export function deliveryType(delivery) {
  try {
    const type = JSON.parse(delivery.rawBody)?.type;
    return typeof type === "string" ? type : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every way the deliveries of one crawl disagree with the contract, each as
 * `{check, text: "<check>: <detail> -- <event> #<n> to <path>"}`: contract-core's judgement of a
 * job's calls (each delivery against its webhook's schemas and the signature rule with the run's
 * secret, then all of them against what the crawl's webhook asked and the order the contract's
 * events give), with the recorded deliveries taken as complete.
 */
export function deliveryDisagreements(crawl, { validators, secret = WEBHOOK_SECRET }) {
  const operation = validators.listOperations().find((op) => op.operationId === crawl.start.operation);
  const events = operation && jobEventsOf(validators, operation.operationId);
  if (!events) throw new Error(`${crawl.start.operation} takes no webhook with a first and a last event`);
  // What the crawl's webhook asked, as the service reads it (a bare URL, the description's defaults).
  const subscription = webhookSubscription(validators.document, operation, crawl.start.requestBody) ?? { url: "", headers: {}, metadata: {}, events: [] };
  const started = crawl.start.status >= 200 && crawl.start.status < 300;
  const findings = judgeJobCalls(validators, { id: crawl.start.responseBody?.id, subscription, events }, crawl.deliveries.map((delivery) => ({ method: delivery.method, headers: delivery.headers, body: delivery.rawBody })), { secret, complete: true });
  const types = crawl.deliveries.map(deliveryType);
  const where = (index) => (index === undefined ? `the crawl's deliveries (${types.join(", ") || "none"})` : `${types[index] ?? "a delivery"} #${index} to ${crawl.deliveries[index].path}`);
  const found = [];
  // A crawl that was not started has no order to keep: any delivery for it is the one disagreement.
  if (!started && crawl.deliveries.length > 0) found.push({ check: "delivery-order", text: `delivery-order: deliveries for a crawl that was not started (${crawl.start.status}) -- ${where()}` });
  // One disagreement per problem, so that a listed one (a member the release does not send) hides no other.
  for (const finding of findings) {
    if (!started && finding.concern === "order") continue;
    const check = deliveryCheckOf(finding.concern);
    found.push({ check, text: `${check}: ${describeFinding(finding)} -- ${where(finding.call)}` });
  }
  return [...new Map(found.map((one) => [one.text, one])).values()];
}

/**
 * A record folder's accepted differences, in contract-core's known-differences format (`{operation,
 * check, reason, why}`, `reason` a substring of the disagreement's text), checked beyond the format:
 * each names a check of the replay and an operation of the contract, and its `why` starts with its
 * kind (`version: …`). Returns the entries and what is wrong with the list.
 */
function checkedKnown(known, operationIds) {
  let entries;
  try {
    entries = parseKnownDifferences(known, KNOWN_FILE);
  } catch (error) {
    return { entries: [], problems: [error.message] };
  }
  const problems = [];
  for (const [index, entry] of entries.entries()) {
    const named = `${KNOWN_FILE} entry ${index} (${entry.reason})`;
    if (!CHECKS.includes(entry.check)) problems.push(`${named}: check must be one of ${CHECKS.join(", ")}`);
    if (!KINDS.some((kind) => entry.why.startsWith(`${kind}: `))) problems.push(`${named}: why must start with its kind, one of ${KINDS.map((kind) => `"${kind}: "`).join(", ")}`);
    if (!operationIds.includes(entry.operation)) problems.push(`${named}: ${entry.operation} is no operation of the contract`);
  }
  return { entries, problems };
}

/**
 * Judges the records of one server (`{exchanges, webhookCrawls}`) against its bundle and its
 * accepted differences. Throws nothing for a disagreement: it returns them all, so that a run
 * prints every one and a test names each exchange.
 *
 * - `results`: each exchange the contract describes (a webhook crawl's start included), its
 *   disagreements (`found`) and those no entry explains (`unexplained`);
 * - `crawls`: each webhook crawl with the disagreements of its deliveries, the same way;
 * - `stale`: entries that explain none of them;
 * - `nowDescribed`: exchanges recorded as outside the contract that an operation now describes;
 * - `credentials`: exchanges whose text holds a credential;
 * - `listProblems`: what is wrong with the list itself.
 */
export function judgeRecords(server, { exchanges, webhookCrawls = [] }, known) {
  if (!RECORDED_SERVERS[server]) throw new Error(`recorded/${server}: name the bundle it implements in RECORDED_SERVERS`);
  const { service, stateRefusals } = RECORDED_SERVERS[server];
  const validators = new OpenApiValidators(loadBundle(service));
  const judge = new ExchangeJudge(validators);
  const checked = checkedKnown(known, validators.listOperations().map((op) => op.operationId));
  const listed = new KnownDifferences(checked.entries);
  const explain = (operation, found) => ({ found, unexplained: found.filter((one) => !listed.explain(operation, one.check, one.text)).map((one) => one.text) });
  const results = [...exchanges, ...webhookCrawls.map((crawl) => crawl.start)]
    .filter((item) => item.operation !== null)
    .map((item) => ({ item, ...explain(item.operation, disagreements(judge, item, stateRefusals)) }));
  const crawls = webhookCrawls.map((crawl) => ({ crawl, ...explain(crawl.start.operation, deliveryDisagreements(crawl, { validators })) }));
  return {
    results,
    crawls,
    stale: listed.stale(),
    nowDescribed: exchanges.filter((item) => item.operation === null && validators.findOperation(item.method, item.path) !== undefined),
    credentials: [...exchanges, ...webhookCrawls].filter((item) => CREDENTIAL.test(JSON.stringify(item))),
    listProblems: checked.problems,
  };
}

/** Every failure of a judgement, one line each (empty when the exchanges agree or differ as listed). */
export function failuresOf(judgement) {
  return [
    ...judgement.listProblems,
    ...judgement.results.flatMap(({ item, unexplained }) => unexplained.map((text) => `${item.operation}: ${text} (${item.note})`)),
    ...judgement.crawls.flatMap(({ crawl, unexplained }) => unexplained.map((text) => `webhook of ${crawl.start.responseBody?.id ?? "a crawl"}: ${text}`)),
    ...judgement.stale.map((entry) => `stale known difference (no exchange shows it): ${entry.operation} ${entry.check} "${entry.reason}"`),
    ...judgement.nowDescribed.map((item) => `${item.method} ${item.path} is recorded as outside the contract, but the contract now describes it`),
    ...judgement.credentials.map((item) => `a credential in the ${item.start ? "webhook crawl" : "exchange"} ${requestLine(item.start ?? item).slice(0, 80)}`),
  ];
}

/** One line: how many exchanges and deliveries, disagreements, explained ones, failures. */
export function summaryOf(judgement) {
  const judged = [...judgement.results, ...judgement.crawls];
  const found = judged.reduce((sum, { found }) => sum + found.length, 0);
  const unexplained = judged.reduce((sum, { unexplained }) => sum + unexplained.length, 0);
  const deliveries = judgement.crawls.reduce((sum, { crawl }) => sum + crawl.deliveries.length, 0);
  const crawls = judgement.crawls.length > 0 ? ` and ${deliveries} webhook deliveries of ${judgement.crawls.length} crawls` : "";
  return `${judgement.results.length} exchanges${crawls} judged: ${found} disagreements, ${found - unexplained} known, ${unexplained} not known; ${judgement.stale.length} stale known differences`;
}
