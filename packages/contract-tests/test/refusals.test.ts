// What the kit expects of a refusal: the status and code the API's decision gives the request, where
// a client that follows the contract acts on them; statuses a client handles alike are no harm.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractOf, getApi, registerApi } from "@api-contracts/contract-core";
import { runContractTests } from "../src/index.js";
import { refusalMiss } from "../src/checks/types.js";
import { startDecisionServer, type ApiServer } from "./helpers.js";

describe("refusalMiss: which answers miss the decision's refusal", () => {
  const webdata = contractOf("webdata");
  const entitlements = contractOf("entitlements");

  it("a 409 the decision gives, answered 400, is a miss: the client reads a conflict (its key was used) as a request to fix", () => {
    expect(refusalMiss(webdata, { status: 409, body: { success: false, error: "Idempotency key already used" } }, { status: 400, body: { success: false, code: "BAD_REQUEST", error: "Bad Request" } })).toBe("expected 409, got 400");
  });

  it("another status a client handles alike is no harm: 422 for 400, 403 for 401, 410 for 404", () => {
    for (const [expected, given] of [[400, 422], [401, 403], [404, 410]] as const) expect(refusalMiss(webdata, { status: expected, body: {} }, { status: given, body: {} })).toBeUndefined();
    expect(refusalMiss(webdata, { status: 400, body: {} }, { status: 404, body: {} })).toBe("expected 400, got 404");
  });

  it("where the API's error body carries a code, another code is a miss", () => {
    const expected = { status: 400, body: { message: "x", code: "invalid_api_version", env: "sandbox" } };
    expect(refusalMiss(entitlements, expected, { status: 400, body: { message: "x", code: "invalid_inputs", env: "sandbox" } })).toBe('expected code invalid_api_version, got "invalid_inputs"');
    expect(refusalMiss(entitlements, expected, { status: 400, body: { message: "y", code: "invalid_api_version", env: "live" } })).toBeUndefined();
  });
});

describe("an API whose facts refuse a bad idempotency key with 409, early", () => {
  const NAME = "webdata-idempotent";
  const KEY = "fc-0123456789abcdef0123456789abcdef";
  const webdata = getApi("webdata");
  let unregister: () => void;
  let correct: ApiServer;
  let faulty: ApiServer;
  beforeAll(async () => {
    unregister = registerApi({
      ...webdata,
      name: NAME,
      requests: { ...webdata.requests, checks: ["body", "authorization", { parameters: ["header x-idempotency-key"], refusal: "idempotency-key-used" }, "parameters", "schema"] },
      errors: { ...webdata.errors, refusals: { ...webdata.errors.refusals, "idempotency-key-used": { status: 409, body: { success: false, error: "Idempotency key already used" } } } },
    });
    correct = await startDecisionServer(NAME);
    // Refuses the key as any invalid request: 400, where the contract documents 409.
    faulty = await startDecisionServer(NAME, { refuse: (reply) => (reply.status === 409 ? contractOf(NAME).reply({ kind: "bad-request", message: "Bad Request" }) : reply) });
  });
  afterAll(async () => {
    await correct?.close();
    await faulty?.close();
    unregister?.();
  });

  const run = (baseUrl: string) => runContractTests({ service: NAME, baseUrl, apiKey: KEY, include: ["startCrawl"], generate: 60, seed: 20261123 });

  it("a server that answers the decision's 409 passes, hand-written and generated checks alike", async () => {
    const report = await run(correct.url);
    const failed = report.operations.startCrawl!.checks.filter((check) => !check.passed).map((check) => `${check.check}: ${check.reason}`);
    expect(failed).toEqual([]);
    expect(report.operations.startCrawl!.checks.map((check) => check.check)).toContain("header-invalid-x-idempotency-key");
  });

  it("a server that answers it 400 fails the check of the key and the generated invalid requests, naming the 409", async () => {
    const report = await run(faulty.url);
    const checks = report.operations.startCrawl!.checks;
    expect(checks.find((check) => check.check === "header-invalid-x-idempotency-key")).toMatchObject({ passed: false, reason: expect.stringMatching(/^expected 409, got 400: /) });
    const invalid = checks.find((check) => check.check === "generated-invalid")!;
    expect(invalid.passed).toBe(false);
    expect(invalid.failures?.map((failure) => failure.reason)).toContainEqual(expect.stringMatching(/^expected 409, got 400 -- the request breaks one rule: header\/x-idempotency-key must match pattern "/));
  });
});
