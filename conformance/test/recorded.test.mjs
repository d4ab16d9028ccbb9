// Replays what real servers answered (recorded by `conformance <server> --record`) with the
// judgement the run itself applies (`src/judgement.mjs`): each server folder against the bundle
// of the API it implements, with the differences its known-differences.json accepts.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { autumnRequests, firecrawlRequests } from "../src/index.mjs";
import { failuresOf, judgeExchanges, readExchanges, readKnown, recordedDir, requestLine, serversRecorded } from "../src/judgement.mjs";

const servers = serversRecorded();

it("the recorded exchanges hold at least 40 answers of real servers, each naming its server's commit and credential form", () => {
  const all = servers.flatMap((server) => readExchanges(path.join(recordedDir(), server)));
  expect(all.length).toBeGreaterThanOrEqual(40);
  for (const item of all) {
    expect(item.server, item.file).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
    expect(["bearer", "basic", "none"], item.file).toContain(item.authorization);
  }
});

/** The request lists the runs send, by server. */
const REQUEST_LISTS = { firecrawl: firecrawlRequests, autumn: autumnRequests };

/** What identifies a request of a list in its record (a path placeholder is filled by the run). */
const requestKey = (r) => JSON.stringify([r.note, r.method, r.auth ?? r.authorization, r.query ?? null, r.headers ?? null, r.body ?? r.requestBody ?? null, r.raw ?? r.requestRaw ?? null]);

it.each(servers)("%s: the records hold one exchange per request of the run's list, in its order", (server) => {
  const bySource = (items, fileOf) => {
    const groups = {};
    for (const item of items) (groups[fileOf(item)] ??= []).push(item);
    return groups;
  };
  const records = bySource(readExchanges(path.join(recordedDir(), server)), (item) => item.file);
  const list = bySource(REQUEST_LISTS[server](), (request) => `${request.operation ?? "outside-contract"}.json`);
  expect(Object.keys(records).sort()).toEqual(Object.keys(list).sort());
  for (const [file, items] of Object.entries(records)) expect(items.map(requestKey), file).toEqual(list[file].map(requestKey));
});

describe.each(servers)("%s: recorded answers agree with the contract, or differ as listed", (server) => {
  const folder = path.join(recordedDir(), server);
  const judgement = judgeExchanges(server, readExchanges(folder), readKnown(folder));

  it("every known difference names its operation, check, kind, what differs and why", () => {
    expect(judgement.listProblems).toEqual([]);
  });

  it.each(judgement.results.map(({ item, unexplained }, index) => [`${item.file} #${index} ${item.status} ${requestLine(item).slice(0, 120)}`, item, unexplained]))(
    "%s",
    (_name, item, unexplained) => {
      expect(unexplained, `${item.note} (${item.server})`).toEqual([]);
    },
  );

  it("every listed known difference still occurs", () => {
    expect(judgement.stale.map((entry) => `${entry.operation} ${entry.check}: ${entry.match}`)).toEqual([]);
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
  const known = (entry) => ({ operation: "startCrawl", check: "verdict", kind: "version", differs: "d", why: "w", ...entry });

  it("finds nothing in an answer that agrees", () => {
    expect(failuresOf(judgeExchanges("firecrawl", [crawl], []))).toEqual([]);
  });

  it("fails an undocumented status, a served request without credential, and an acceptance the contract refuses", () => {
    const failures = failuresOf(
      judgeExchanges("firecrawl", [{ ...crawl, status: 418 }, { ...crawl, authorization: "none" }, { ...crawl, requestBody: { url: "https://example.com", limit: "10" } }], []),
    );
    expect(failures).toEqual([
      expect.stringContaining("response: status 418 is not documented"),
      expect.stringContaining("auth: live served (200) a request with no credential"),
      expect.stringContaining("verdict: live accepted (200), the contract refuses: body limit"),
    ]);
  });

  it("a listed difference explains its disagreement, and a list entry that explains nothing is stale", () => {
    const refused = { ...crawl, requestBody: { url: "https://example.com", limit: "10" } };
    const judgement = judgeExchanges("firecrawl", [refused], [known({ match: '"limit":"10"' }), known({ match: "never seen" })]);
    expect(judgement.results[0].unexplained).toEqual([]);
    expect(failuresOf(judgement)).toEqual([expect.stringMatching(/^stale known difference .*"never seen"/)]);
  });

  it("fails a credential left in an exchange, an outside request the contract now describes, and a malformed list", () => {
    const leaked = { ...crawl, responseBody: { ...crawl.responseBody, echoed: "Bearer fc-0123456789abcdefghijklmnop" } };
    const outside = { ...crawl, operation: null };
    const failures = failuresOf(judgeExchanges("firecrawl", [leaked, outside], [{ operation: "startCrawl", check: "verdict", kind: "rumour", match: "x", differs: "d", why: "w" }]));
    expect(failures).toEqual([
      expect.stringContaining("kind must be one of"),
      expect.stringMatching(/^stale known difference/),
      expect.stringContaining("POST /v2/crawl is recorded as outside the contract"),
      expect.stringContaining("a credential in the exchange"),
    ]);
  });
});
