import { describe, expect, it } from "vitest";
import { contractOf, type Problem } from "../src/index.js";

describe("each API's wording of refusals, from its facts", () => {
  it("entitlements: a body over the limit and a request that comes too late carry the codes the Error table gives them", () => {
    const { wording } = contractOf("entitlements");
    expect(wording.word({ kind: "too-large", limit: 1024 })).toMatchObject({ status: 413, body: { code: "payload_too_large", env: "sandbox" } });
    expect(wording.word({ kind: "timeout" }, { env: "live" })).toMatchObject({ status: 408, body: { code: "request_timeout", env: "live" } });
  });

  it("webdata: an unknown body member is an unrecognized_keys issue worded as the description's own example", () => {
    const errors = [{ in: "body" as const, path: ["cache"], keyword: "additionalProperties", params: { additionalProperty: "cache" }, message: "must NOT have additional properties" }];
    const { body } = contractOf("webdata").wording.word({ kind: "invalid", errors });
    expect(body).toMatchObject({ error: "Unrecognized key in body -- please review the v2 API documentation for request body changes" });
    expect((body as { details: unknown[] }).details).toEqual([{ code: "unrecognized_keys", path: [], keys: ["cache"], message: 'Unrecognized key: "cache"' }]);
  });

  const problems: Problem[] = [
    { kind: "unauthorized", reason: "missing" },
    { kind: "unauthorized", reason: "empty" },
    { kind: "unauthorized", reason: "malformed" },
    { kind: "unauthorized", reason: "unknown-key" },
    { kind: "bad-request", message: "A path parameter is too long" },
    { kind: "too-large", limit: 1024 },
    { kind: "timeout" },
    { kind: "internal" },
  ];
  it.each([
    ["entitlements", "POST", "/v1/balances.check"],
    ["webdata", "POST", "/v2/crawl"],
  ] as const)("%s: every refusal is a body the operation documents at its status", (name, method, path) => {
    const contract = contractOf(name);
    for (const problem of [...problems, ...(name === "webdata" ? [{ kind: "malformed-json" } as const] : [])]) {
      const { status, body } = contract.reply(problem, { method, path });
      const validate = contract.validators.response(method, path, status);
      expect(validate, `${method} ${path} documents ${status}`).not.toBeNull();
      expect(validate!(body), `${problem.kind}: ${JSON.stringify(validate!.errors)}`).toBe(true);
    }
  });
});
