import { describe, expect, it } from "vitest";
import { firecrawlRequests } from "../src/index.mjs";
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
