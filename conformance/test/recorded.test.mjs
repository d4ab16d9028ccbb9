// Replays what real servers answered (recorded by `conformance <server> --record`) with the
// judgement the run itself applies (`src/judgement.mjs`): each server folder against the bundle
// of the API it implements, with the differences its known-differences.json accepts.
// CONFORMANCE_RECORDED names another folder of server folders to judge (a run's scratch --record
// folder's parent) instead of the records the spec package publishes.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { autumnRequests, firecrawlRequests } from "../src/index.mjs";
import { createHmac, randomUUID } from "node:crypto";
import { contractOf } from "@api-contracts/contract-core";
import { deliveryDisagreements, failuresOf, judgeRecords, readExchanges, readKnown, readRecords, readWebhookCrawls, recordedDir, requestLine, serversRecorded, WEBHOOK_SECRET } from "../src/judgement.mjs";

const root = process.env.CONFORMANCE_RECORDED ? path.resolve(process.env.CONFORMANCE_RECORDED) : recordedDir();
const servers = serversRecorded(root);

it("the recorded exchanges hold at least 40 answers of real servers, each naming its server's commit and credential form", () => {
  const all = servers.flatMap((server) => readExchanges(path.join(root, server)));
  expect(all.length).toBeGreaterThanOrEqual(40);
  for (const item of all) {
    expect(item.server, item.file).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
    expect(["bearer", "basic", "none"], item.file).toContain(item.authorization);
  }
});

it.skipIf(!servers.includes("firecrawl"))("firecrawl: the records hold real webhook deliveries of crawl.started, crawl.page and crawl.completed", () => {
  const crawls = readWebhookCrawls(path.join(root, "firecrawl"));
  const types = new Set(crawls.flatMap((crawl) => crawl.deliveries.map((delivery) => JSON.parse(delivery.rawBody).type)));
  for (const type of ["crawl.started", "crawl.page", "crawl.completed"]) expect([...types]).toContain(type);
  for (const crawl of crawls) expect(crawl.start.server).toMatch(/^[\w.-]+\/firecrawl@[0-9a-f]{40}$/);
});

/** The request lists the runs send, by server. */
const REQUEST_LISTS = { firecrawl: firecrawlRequests, autumn: autumnRequests };

/** What identifies a request of a list in its record (a path placeholder is filled by the run). */
const requestKey = (r) => JSON.stringify([r.note, r.method, r.auth ?? r.authorization, r.query ?? null, r.headers ?? null, r.body ?? r.requestBody ?? null, r.raw ?? r.requestRaw ?? null]);

/** Requests added to the run's lists since the published records were made, by server: the next recording sends them. */
const AWAITING = JSON.parse(readFileSync(new URL("../awaiting-record.json", import.meta.url), "utf8"));

it.each(servers)("%s: the records hold one exchange per request of the run's list, in its order, but for those awaiting the next recording", (server) => {
  const bySource = (items, fileOf) => {
    const groups = {};
    for (const item of items) (groups[fileOf(item)] ??= []).push(item);
    return groups;
  };
  const awaiting = new Set(AWAITING[server] ?? []);
  const requests = REQUEST_LISTS[server]();
  for (const note of awaiting) expect(requests.filter((request) => request.note === note), `awaiting-record.json names a request the run does not send: ${note}`).toHaveLength(1);
  const recorded = readExchanges(path.join(root, server));
  for (const item of recorded) expect(awaiting.has(item.note), `recorded, so no longer awaiting (remove it from awaiting-record.json): ${item.note}`).toBe(false);
  const records = bySource(recorded, (item) => item.file);
  const list = bySource(requests.filter((request) => !awaiting.has(request.note)), (request) => `${request.operation ?? "outside-contract"}.json`);
  expect(Object.keys(records).sort()).toEqual(Object.keys(list).sort());
  for (const [file, items] of Object.entries(records)) expect(items.map(requestKey), file).toEqual(list[file].map(requestKey));
});

describe.each(servers)("%s: recorded answers agree with the contract, or differ as listed", (server) => {
  const folder = path.join(root, server);
  const judgement = judgeRecords(server, readRecords(folder), readKnown(folder));

  it("every known difference is in contract-core's format and names its operation, its check and, first in its why, its kind", () => {
    expect(judgement.listProblems).toEqual([]);
  });

  it.each(judgement.results.map(({ item, unexplained }, index) => [`${item.file} #${index} ${item.status} ${requestLine(item).slice(0, 120)}`, item, unexplained]))(
    "%s",
    (_name, item, unexplained) => {
      expect(unexplained, `${item.note} (${item.server})`).toEqual([]);
    },
  );

  it.each(judgement.crawls.map(({ crawl, unexplained }, index) => [`webhook crawl #${index} ${crawl.start.responseBody?.id}: ${crawl.deliveries.length} deliveries`, crawl, unexplained]))(
    "%s",
    (_name, crawl, unexplained) => {
      expect(unexplained, `${crawl.start.note} (${crawl.start.server})`).toEqual([]);
    },
  );

  it("every listed known difference still occurs", () => {
    expect(judgement.stale.map((entry) => `${entry.operation} ${entry.check}: ${entry.reason}`)).toEqual([]);
  });

  it("requests recorded as outside the contract are still outside it", () => {
    expect(judgement.nowDescribed.map((item) => `${item.method} ${item.path} is now described: record it under its operation`)).toEqual([]);
  });

  it("no exchange holds a credential", () => {
    expect(judgement.credentials.map((item) => `${item.file}: ${requestLine(item).slice(0, 80)}`)).toEqual([]);
  });
});

describe("the judgement a run and the replay share", () => {
  const crawl = {
    operation: "startCrawl",
    method: "POST",
    path: "/v2/crawl",
    authorization: "bearer",
    requestBody: { url: "https://example.com" },
    status: 200,
    contentType: "application/json; charset=utf-8",
    responseBody: { success: true, id: "0f6c2b8e-1d3a-4b5c-9e7f-a1b2c3d4e5f6", url: "https://api.example.com/v2/crawl/0f6c2b8e-1d3a-4b5c-9e7f-a1b2c3d4e5f6" },
    server: `firecrawl/firecrawl@${"0".repeat(40)}`,
    note: "a crawl",
  };
  const known = (entry) => ({ operation: "startCrawl", check: "verdict", why: "version: d; w", ...entry });

  it("finds nothing in an answer that agrees", () => {
    expect(failuresOf(judgeRecords("firecrawl", { exchanges: [crawl] }, []))).toEqual([]);
  });

  it("fails an undocumented status, a served request without credential, and an acceptance the contract refuses", () => {
    const failures = failuresOf(
      judgeRecords("firecrawl", { exchanges: [{ ...crawl, status: 418 }, { ...crawl, authorization: "none" }, { ...crawl, requestBody: { url: "https://example.com", limit: "10" } }] }, []),
    );
    expect(failures).toEqual([
      expect.stringContaining("response: status 418 is not documented"),
      expect.stringContaining("auth: live accepted (200), the contract refuses: header/authorization is missing"),
      expect.stringContaining("verdict: live accepted (200), the contract refuses: body/limit must be number"),
    ]);
  });

  it("a refused request must get the decision's status, and its code where the API's error body carries one", () => {
    const refused = { ...crawl, requestBody: { url: "https://example.com", limit: "10" }, contentType: "application/json" };
    const answered = (status, responseBody) => failuresOf(judgeRecords("firecrawl", { exchanges: [{ ...refused, status, responseBody }] }, []));
    expect(answered(400, { success: false, code: "BAD_REQUEST", error: "Bad Request", details: [] })).toEqual([]);
    expect(answered(409, { success: false, error: "Idempotency key already used" })).toEqual([expect.stringContaining("verdict: expected 400, got 409; the contract refuses: body/limit must be number")]);
    expect(answered(400, { success: false, error: "Bad Request" })).toEqual([expect.stringContaining("verdict: expected code BAD_REQUEST, got null; the contract refuses: body/limit")]);
    // An early check of the facts (a crawl id that is not a UUID) has its own refusal, without a code.
    const cancel = { ...crawl, operation: "cancelCrawl", method: "DELETE", path: "/v2/crawl/not-a-uuid", requestBody: undefined, status: 400, responseBody: { success: false, error: "Invalid job ID format. Job ID must be a valid UUID." } };
    expect(failuresOf(judgeRecords("firecrawl", { exchanges: [cancel] }, []))).toEqual([]);
    expect(failuresOf(judgeRecords("firecrawl", { exchanges: [{ ...cancel, status: 404, responseBody: { error: "Job not found" } }] }, []))).toEqual([expect.stringContaining("verdict: expected 400, got 404; the contract refuses: path/id ")]);
  });

  it("the server knows the run's key alone: a Basic credential carries a key it does not know, answered 401", () => {
    const basic = { ...crawl, authorization: "basic" };
    expect(failuresOf(judgeRecords("firecrawl", { exchanges: [basic] }, []))).toEqual([expect.stringContaining("auth: live accepted (200), the contract refuses: header/authorization carries a key the server does not know")]);
    const refused = { ...basic, status: 401, responseBody: { success: false, error: "Unauthorized: Invalid token" } };
    expect(failuresOf(judgeRecords("firecrawl", { exchanges: [refused] }, []))).toEqual([]);
  });

  it("a request the contract accepts may be refused as invalid only as a state refusal of the facts; any other refusal status is no verdict on it", () => {
    const finalize = {
      operation: "finalizeLock",
      method: "POST",
      path: "/v1/balances.finalize",
      authorization: "bearer",
      requestBody: { lock_id: "lock_1", action: "release" },
      status: 400,
      contentType: "application/json",
      responseBody: { message: "Lock not found for ID: lock_1", code: "invalid_request", env: "sandbox" },
      server: `useautumn/autumn@${"0".repeat(40)}`,
      note: "a lock never placed",
    };
    expect(failuresOf(judgeRecords("autumn", { exchanges: [finalize] }, []))).toEqual([]);
    const invalid = { ...finalize, responseBody: { message: "Invalid inputs: lock_id must be a string", code: "invalid_inputs", env: "sandbox" } };
    expect(failuresOf(judgeRecords("autumn", { exchanges: [invalid] }, []))).toEqual([expect.stringContaining("verdict: live refused (400), the contract accepts -- POST /v1/balances.finalize")]);
    const forbidden = { ...crawl, status: 403, responseBody: { success: false, error: "Threat protection is an enterprise feature and is not enabled for your team." } };
    expect(failuresOf(judgeRecords("firecrawl", { exchanges: [forbidden] }, []))).toEqual([]);
  });

  it("a listed difference explains its disagreement, and a list entry that explains nothing is stale", () => {
    const refused = { ...crawl, requestBody: { url: "https://example.com", limit: "10" } };
    const judgement = judgeRecords("firecrawl", { exchanges: [refused] }, [known({ reason: '"limit":"10"' }), known({ reason: "never seen" })]);
    expect(judgement.results[0].unexplained).toEqual([]);
    expect(failuresOf(judgement)).toEqual([expect.stringMatching(/^stale known difference .*"never seen"/)]);
  });

  it("fails a credential left in an exchange, an outside request the contract now describes, and a malformed list", () => {
    const leaked = { ...crawl, responseBody: { ...crawl.responseBody, echoed: "Bearer fc-0123456789abcdefghijklmnop" } };
    const outside = { ...crawl, operation: null };
    const failures = failuresOf(judgeRecords("firecrawl", { exchanges: [leaked, outside] }, [{ operation: "startCrawl", check: "verdict", reason: "x", why: "rumour: d; w" }]));
    expect(failures).toEqual([
      expect.stringContaining("why must start with its kind"),
      expect.stringMatching(/^stale known difference/),
      expect.stringContaining("POST /v2/crawl is recorded as outside the contract"),
      expect.stringContaining("a credential in the exchange"),
    ]);
  });
});

describe("the judgement of a crawl's webhook deliveries", () => {
  const crawlId = "0f6c2b8e-1d3a-4b5c-9e7f-a1b2c3d4e5f6";
  const webhook = { url: "http://127.0.0.1:9/hooks", headers: { "X-Team": "docs" }, metadata: { project: "docs" } };
  const start = (asked = webhook) => ({
    operation: "startCrawl",
    method: "POST",
    path: "/v2/crawl",
    authorization: "bearer",
    requestBody: { url: "https://example.com", webhook: asked },
    status: 200,
    contentType: "application/json",
    responseBody: { success: true, id: crawlId, url: `https://api.example.com/v2/crawl/${crawlId}` },
    server: `firecrawl/firecrawl@${"0".repeat(40)}`,
    note: "a crawl with a webhook",
  });
  const signed = (rawBody, secret = WEBHOOK_SECRET) => `sha256=${createHmac("sha256", secret).update(rawBody).digest("hex")}`;
  const delivery = (type, { body = {}, headers = { "x-team": "docs" }, sign = true } = {}) => {
    const data = type === "crawl.page" ? [{ markdown: "# Docs", metadata: { sourceURL: "https://example.com/", statusCode: 200 } }] : [];
    const rawBody = JSON.stringify({ success: true, type, id: crawlId, webhookId: randomUUID(), data, metadata: { project: "docs" }, ...body });
    return { method: "POST", path: "/hooks", headers: { "content-type": "application/json", ...headers, ...(sign ? { "x-firecrawl-signature": signed(rawBody) } : {}) }, rawBody };
  };
  const ordered = () => [delivery("crawl.started"), delivery("crawl.page"), delivery("crawl.completed")];
  const contract = contractOf("webdata");
  const judged = (deliveries, asked) => deliveryDisagreements({ start: start(asked), deliveries }, { contract });
  const checks = (deliveries, asked) => judged(deliveries, asked).map((one) => one.check);

  it("finds nothing in signed deliveries that follow the webhook", () => {
    expect(judged(ordered())).toEqual([]);
  });

  it("fails a missing crawl.started, a page after crawl.completed and a missing crawl.completed", () => {
    expect(checks(ordered().slice(1))).toEqual(["delivery-order"]);
    const [started, page, completed] = ordered();
    expect(judged([started, completed, page])).toEqual([expect.objectContaining({ check: "delivery-order", text: expect.stringContaining("arrived after crawl.completed -- crawl.page #2") })]);
    expect(judged([started, page])).toEqual([expect.objectContaining({ check: "delivery-order", text: expect.stringContaining("no crawl.completed") })]);
  });

  it("fails an event the webhook's events leave out", () => {
    expect(checks(ordered(), { ...webhook, events: ["completed"] })).toEqual(["delivery-events", "delivery-events"]);
    expect(checks([delivery("crawl.completed")], { ...webhook, events: ["completed"] })).toEqual([]);
  });

  it("fails a delivery with another crawl's id, dropped metadata or a missing header", () => {
    const [started, page, completed] = ordered();
    expect(checks([started, delivery("crawl.page", { body: { id: "1d6c9b3e-7a42-4f85-9c0d-2e8b5f7a1c36" } }), completed])).toEqual(["delivery-id"]);
    expect(checks([started, delivery("crawl.page", { body: { metadata: {} } }), completed])).toEqual(["delivery-metadata"]);
    expect(checks([started, delivery("crawl.page", { headers: {} }), completed])).toEqual(["delivery-headers"]);
    expect(checks([started, page, completed], "http://127.0.0.1:9/hooks")).toEqual(["delivery-metadata", "delivery-metadata", "delivery-metadata"]);
  });

  it("fails an unsigned delivery, a signature with another secret and a body changed after signing", () => {
    const [started, page, completed] = ordered();
    expect(judged([started, delivery("crawl.page", { sign: false }), completed])).toEqual([expect.objectContaining({ check: "delivery-signature", text: expect.stringContaining("missing_signature: X-Firecrawl-Signature is missing") })]);
    const otherSecret = { ...page, headers: { ...page.headers, "x-firecrawl-signature": signed(page.rawBody, "another secret") } };
    const tampered = { ...page, rawBody: page.rawBody.replace("# Docs", "# Changed") };
    expect(checks([started, otherSecret, tampered, completed])).toEqual(["delivery-signature", "delivery-signature"]);
  });

  it("fails a body off its webhook's schema, one disagreement per problem", () => {
    const [started, page, completed] = ordered();
    const unsigned = (rawBody) => ({ ...page, headers: { ...page.headers, "x-firecrawl-signature": signed(rawBody) }, rawBody });
    expect(judged([started, unsigned("not json"), completed])).toEqual([expect.objectContaining({ check: "delivery-schema", text: expect.stringContaining("delivery-schema: body is not JSON -- a delivery #1") })]);
    const failed = JSON.stringify({ ...JSON.parse(completed.rawBody), type: "crawl.failed", success: false, error: "Crawl failed" });
    expect(judged([started, unsigned(failed), completed])).toEqual([expect.objectContaining({ check: "delivery-schema", text: expect.stringContaining("body/type must be one of \"crawl.started\"") })]);
    const { webhookId: _dropped, ...withoutId } = JSON.parse(page.rawBody);
    const failedPage = JSON.stringify({ ...withoutId, success: false });
    expect(judged([started, unsigned(failedPage), completed]).map((one) => one.text.split(" -- ")[0])).toEqual([
      "delivery-schema: body/webhookId is required",
      "delivery-schema: body/error is required",
    ]);
    expect(checks([started, { ...page, headers: { ...page.headers, "content-type": "text/plain" } }, completed])).toEqual(["delivery-schema"]);
  });

  it("a listed schema difference explains its own problem and no other of the same delivery", () => {
    const [started, page, completed] = ordered();
    const { webhookId: _dropped, ...withoutId } = JSON.parse(page.rawBody);
    const rawBody = JSON.stringify({ ...withoutId, data: [] });
    const bare = { ...page, headers: { ...page.headers, "x-firecrawl-signature": signed(rawBody) }, rawBody };
    const known = [{ operation: "startCrawl", check: "delivery-schema", reason: "body/webhookId is required", why: "version: d; w" }];
    const judgement = judgeRecords("firecrawl", { exchanges: [], webhookCrawls: [{ start: start(), deliveries: [started, bare, completed] }] }, known);
    expect(judgement.crawls[0].unexplained).toEqual([expect.stringMatching(/^delivery-schema: body\/data must NOT have fewer than 1 items -- crawl.page #1/)]);
    expect(judgement.stale).toEqual([]);
  });
});
