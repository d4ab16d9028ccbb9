import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { autumnRequests, firecrawlRequests } from "../src/index.mjs";
import { endsSelfHostedServer } from "../src/firecrawl-requests.mjs";
import { specFolder } from "../src/exchanges.mjs";
import { operationIdsOf } from "./operations.mjs";

const operationIds = operationIdsOf("webdata");

describe("the Firecrawl request list", () => {
  const requests = firecrawlRequests();

  it("sends at least 40 requests and asks every web data operation, with and without a credential", () => {
    expect(requests.length).toBeGreaterThanOrEqual(40);
    for (const id of operationIds) {
      const forms = new Set(requests.filter((r) => r.operation === id).map((r) => r.auth));
      expect([...forms].sort(), id).toEqual(expect.arrayContaining(["bearer", "none"]));
    }
  });

  it("fills a path placeholder only from a value an earlier request captures", () => {
    const captured = new Set();
    for (const request of requests) {
      for (const [, name] of request.path.matchAll(/\{(\w+)\}/g)) expect(captured.has(name), request.path).toBe(true);
      for (const name of Object.keys(request.capture ?? {})) captured.add(name);
    }
  });
});

describe.each([
  ["webdata", firecrawlRequests, endsSelfHostedServer],
  ["entitlements", autumnRequests, () => false],
])("%s: the run's list", (api, list, leftOut) => {
  it("sends every judged request of the spec package, whatever its file, with its path, query and headers, but those the server cannot take", () => {
    const dir = path.join(specFolder("./live-requests/*"), api);
    const cases = readdirSync(dir).flatMap((file) => JSON.parse(readFileSync(path.join(dir, file), "utf8"))).filter((one) => !leftOut(one));
    const sent = list().filter((request) => request.note.startsWith("judged request"));
    const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
    for (const one of cases) {
      const found = sent.filter((r) => r.operation === one.operation && r.note.endsWith(`): ${one.why}`) && (one.path === undefined || r.path === one.path) && same(r.query, one.query) && same(r.headers, one.headers) && same(r.body, one.body));
      expect(found.length, `${one.operation}: ${one.why}`).toBeGreaterThan(0);
    }
    expect(sent).toHaveLength(cases.length);
    expect(sent.filter((r) => r.query || r.headers || /\/v2\/(crawl|monitor)\/./.test(r.path)).length).toBeGreaterThan(0);
  });
});
