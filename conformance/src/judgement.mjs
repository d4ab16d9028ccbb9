// How a recorded exchange with a real server is judged, one implementation for a run
// (`conformance <server>`) and for the replay of its records. Each request is decided, each answer,
// each crawl's webhook calls judged by contract-core (`contractOf(api)`: the decision, the judge,
// judgeJobCalls), as the kit and the proxy judge them; what is conformance's own is the record
// format, which disagreements it asks an accepted difference for (a refused request that did not
// get the decision's status and code, a request the decision serves refused as invalid with no
// state refusal to explain it) and how it reports them. An entry that explains nothing is stale,
// and a failure too, so that the list stays true.
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { KnownDifferences, contractOf, describeFinding, judgeJobCalls, parseKnownDifferences, summarizeAnswer, summarizeProblems } from "@api-contracts/contract-core";
import { specFolder, wireRequest } from "./exchanges.mjs";

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

/** The servers whose records are judged, and the API each implements. */
export const RECORDED_SERVERS = { firecrawl: "webdata", autumn: "entitlements" };

/** The folder the spec package exports its records from (`./recorded/*`): one folder per server. */
export const recordedDir = () => specFolder("./recorded/*");

/** The servers with a record folder. */
export function serversRecorded(dir = recordedDir()) {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** The exchanges of a record folder (one JSON array per operation), each with the file it came from. */
export function readExchanges(folder) {
  return readdirSync(folder)
    .filter((file) => file.endsWith(".json") && file !== KNOWN_FILE && file !== DELIVERIES_FILE)
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

/**
 * Writes the exchanges as one JSON array per operation (`<operationId>.json`; requests outside
 * the contract go to `outside-contract.json`) and, when given, the crawls started with a webhook
 * (`webhook-deliveries.json`), replacing the earlier records of the folder but keeping its
 * known-differences.json.
 */
export function writeRecords(dir, exchanges, webhookCrawls) {
  mkdirSync(dir, { recursive: true });
  const byFile = new Map();
  for (const item of exchanges) {
    const file = `${item.operation ?? "outside-contract"}.json`;
    byFile.set(file, [...(byFile.get(file) ?? []), item]);
  }
  if (webhookCrawls) byFile.set(DELIVERIES_FILE, webhookCrawls);
  for (const file of readdirSync(dir)) {
    if (file.endsWith(".json") && file !== KNOWN_FILE && !byFile.has(file)) rmSync(path.join(dir, file));
  }
  for (const [file, items] of byFile) writeFileSync(path.join(dir, file), `${JSON.stringify(items, null, 2)}\n`);
  return [...byFile.keys()].sort();
}

/** The request of an exchange on one line: method, target, headers and body (never a credential). */
export function requestLine(item) {
  const { target, body } = wireRequest(item, "");
  const headers = Object.entries(item.headers ?? {}).map(([name, value]) => `${name}: ${value} `).join("");
  return `${item.method} ${target} ${headers}${body ?? ""}`.trimEnd();
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

/**
 * The key a judged request's Bearer credential stands for: the run's own key, which a record never
 * holds. The server knows it and no other (a Basic pair carries none of it).
 */
export const runKeyOf = (contract) => `${contract.api.key.prefix}conformance-run`;

/** The decision on a recorded request, as sent: with the run's key (the one the server knows) for a Bearer credential. */
export function decisionOn(contract, item) {
  const key = runKeyOf(contract);
  return contract.decide(wireRequest(item, key), { acceptsKey: (given) => given === key });
}

/**
 * Every way one exchange disagrees with the contract, each as `{check, text: "<check>: <detail> --
 * <request>"}`; the detail lists every problem, so that a known difference can name any of them.
 * The answer is judged against its operation's responses. The request, by the API's decision: one
 * it refuses must get the refusal's status and, where the API's error body carries one, its code
 * (`auth` when the refusal is about the credential, else `verdict`); one it serves must not be
 * refused as invalid (the facts' `invalid` status) unless the facts name the answer a refusal that
 * depends on the target's state.
 */
export function disagreements(contract, item) {
  const operation = contract.validators.listOperations().find((op) => op.operationId === item.operation);
  if (!operation) throw new Error(`no operation ${item.operation}`);
  const found = [];

  const answer = contract.judge.answer(operation, item.method, { status: item.status, contentType: item.contentType || undefined, bodyText: answerText(item) });
  if (answer.problems.length > 0) found.push({ check: "response", detail: summarizeAnswer(item.status, answer.problems, Infinity) });

  const decision = decisionOn(contract, item);
  const expected = contract.refusalOf(decision);
  const refuses = expected && `the contract refuses: ${summarizeProblems(decision.problems, Infinity)}`;
  const check = decision.refusal?.kind === "unauthorized" ? "auth" : "verdict";
  const [code, given] = [expected && contract.codeOf(expected.body), contract.codeOf(item.responseBody)];
  if (!expected) {
    const invalid = item.status === contract.api.errors.refusals.invalid.status && !contract.stateRefusal(item.operation, { status: item.status, body: item.responseBody });
    if (invalid) found.push({ check, detail: `live refused (${item.status}), the contract accepts` });
  } else if (item.status >= 200 && item.status < 300) found.push({ check, detail: `live accepted (${item.status}), ${refuses}` });
  else if (item.status !== expected.status) found.push({ check, detail: `expected ${expected.status}, got ${item.status}; ${refuses}` });
  else if (code !== undefined && given !== code) found.push({ check, detail: `expected code ${code}, got ${JSON.stringify(given ?? null)}; ${refuses}` });

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
export function deliveryDisagreements(crawl, { contract, secret = WEBHOOK_SECRET }) {
  const operation = contract.validators.listOperations().find((op) => op.operationId === crawl.start.operation);
  const events = operation && contract.jobEvents(operation.operationId);
  if (!events) throw new Error(`${crawl.start.operation} takes no webhook with a first and a last event`);
  // What the crawl's webhook asked, as the service reads it (a bare URL, the description's defaults).
  const subscription = contract.webhookSubscription(operation, crawl.start.requestBody) ?? { url: "", headers: {}, metadata: {}, events: [] };
  const started = crawl.start.status >= 200 && crawl.start.status < 300;
  const findings = judgeJobCalls(contract.validators, { id: crawl.start.responseBody?.id, subscription, events }, crawl.deliveries.map((delivery) => ({ method: delivery.method, headers: delivery.headers, body: delivery.rawBody })), { secret, complete: true });
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
  if (!RECORDED_SERVERS[server]) throw new Error(`recorded/${server}: name the API it implements in RECORDED_SERVERS`);
  const contract = contractOf(RECORDED_SERVERS[server]);
  const checked = checkedKnown(known, contract.validators.listOperations().map((op) => op.operationId));
  const listed = new KnownDifferences(checked.entries);
  const explain = (operation, found) => ({ found, unexplained: found.filter((one) => !listed.explain(operation, one.check, one.text)).map((one) => one.text) });
  const results = [...exchanges, ...webhookCrawls.map((crawl) => crawl.start)]
    .filter((item) => item.operation !== null)
    .map((item) => ({ item, ...explain(item.operation, disagreements(contract, item)) }));
  const crawls = webhookCrawls.map((crawl) => ({ crawl, ...explain(crawl.start.operation, deliveryDisagreements(crawl, { contract })) }));
  return {
    results,
    crawls,
    stale: listed.stale(),
    nowDescribed: exchanges.filter((item) => item.operation === null && contract.validators.findOperation(item.method, item.path) !== undefined),
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
