import { describe, expect, it } from "vitest";
import { OpenApiValidators, follow, loadBundle } from "../src/index.js";

describe("the real bundles", () => {
  it("entitlements: every operation compiles, and a check request and every documented 200 example pass", () => {
    const entitlements = new OpenApiValidators(loadBundle("entitlements"));
    for (const op of entitlements.listOperations()) expect(entitlements.request(op.method, op.path).operationId).toBe(op.operationId);
    const check = entitlements.request("POST", "/v1/balances.check");
    const valid = { path: "/v1/balances.check", query: {}, headers: { "x-api-version": "2.4.0" }, body: { customer_id: "cus_1", feature_id: "messages" } };
    expect(check.validate(valid)).toEqual([]);
    expect(check.validate({ ...valid, body: { feature_id: "messages" } }).map((e) => e.path)).toEqual([["customer_id"]]);
    const ok = entitlements.documentedResponse("POST", "/v1/balances.check", 200)!;
    const examples = Object.values((ok.content["application/json"] as { examples: Record<string, unknown> }).examples);
    expect(examples.length).toBeGreaterThan(0);
    const validate = entitlements.response("POST", "/v1/balances.check", 200)!;
    for (const raw of examples) expect(validate((follow(entitlements.document, raw, "").node as { value: unknown }).value)).toBe(true);
  });

  it("webdata: every operation compiles, a crawl id must be a UUID and a 404 is judged by its own schema", () => {
    const webdata = new OpenApiValidators(loadBundle("webdata"));
    for (const op of webdata.listOperations()) expect(webdata.request(op.method, op.path).operationId).toBe(op.operationId);
    expect(webdata.findOperation("DELETE", "/v2/crawl/0f6c2b8e-1d3a-4b5c-9e7f-a1b2c3d4e5f6")?.operationId).toBe("cancelCrawl");
    const cancel = webdata.request("DELETE", "/v2/crawl/{id}");
    expect(cancel.validate({ path: "/v2/crawl/nope", query: {}, headers: {}, body: undefined }).map((e) => [e.in, e.path, e.keyword])).toEqual([
      ["path", ["id"], "pattern"],
      ["path", ["id"], "format"],
    ]);
    expect(webdata.response("DELETE", "/v2/crawl/{id}", 404)!({ error: "Crawl job not found." })).toBe(true);
    expect(webdata.response("DELETE", "/v2/crawl/{id}", 404)!({ success: "no" })).toBe(false);
  });
});
