// The one decision on a request, as each API's facts make it: the checks in the live service's
// order, bodies read by the API's media-type policy, and the refusal worded by the API.
import { describe, expect, it } from "vitest";
import { ApiContract, contractOf, type IncomingRequest } from "../src/index.js";
import { petFacts, petStore } from "./fixture.js";

const entitlements = contractOf("entitlements");
const webdata = contractOf("webdata");
const json = { "content-type": "application/json" };
const check = (headers: IncomingRequest["headers"], body?: string, target = "/v1/balances.check"): IncomingRequest => ({ method: "POST", target, headers, ...(body === undefined ? {} : { body }) });
const answer = (contract: ApiContract, request: IncomingRequest, acceptsKey?: (key: string) => boolean) => {
  const decision = contract.decide(request, acceptsKey ? { acceptsKey } : {});
  const reply = contract.refusalOf(decision);
  return reply && { status: reply.status, code: contract.codeOf(reply.body) ?? (reply.body as { error?: string }).error };
};

describe("entitlements: the checks in Autumn's order", () => {
  const keyed = { authorization: "Bearer am_sk_test_1", ...json };
  const valid = '{"customer_id":"cus_1","feature_id":"messages"}';

  it("reads every body as JSON whatever its Content-Type, as Hono's c.req.json() does", () => {
    for (const type of ["application/json", "text/plain", "application/merge-patch+json", "application/x-www-form-urlencoded"]) {
      const decision = entitlements.decide(check({ ...keyed, "content-type": type }, valid));
      expect(decision.refusal, type).toBeUndefined();
      expect(decision.read?.body).toEqual({ customer_id: "cus_1", feature_id: "messages" });
    }
    expect(entitlements.decide(check({ authorization: keyed.authorization }, valid)).refusal).toBeUndefined();
  });

  it("reads a body that does not parse, or none, as {}: refused for the members it lacks", () => {
    for (const body of ["{", undefined, ""]) {
      const decision = entitlements.decide(check(keyed, body));
      expect(decision.read?.body, String(body)).toEqual({});
      expect(answer(entitlements, check(keyed, body))).toEqual({ status: 400, code: "invalid_inputs" });
    }
  });

  it("judges the key first, then x-api-version, then the body", () => {
    expect(answer(entitlements, check({ ...json, "x-api-version": "not-a-version" }, "{}"))).toEqual({ status: 401, code: "no_secret_key" });
    expect(answer(entitlements, check({ ...keyed, "x-api-version": "not-a-version" }, "{}"))).toEqual({ status: 400, code: "invalid_api_version" });
    const reply = entitlements.refusalOf(entitlements.decide(check({ ...keyed, "x-api-version": "not-a-version" }, "{}")));
    expect(reply?.body).toEqual({ message: '"not-a-version" is not a valid API version', code: "invalid_api_version", env: "sandbox" });
    expect(answer(entitlements, check(keyed, "{}"))).toEqual({ status: 400, code: "invalid_inputs" });
  });

  it("asks the server which keys it knows; without it any well-formed key is taken", () => {
    const known = (key: string) => key === "am_sk_test_1";
    expect(answer(entitlements, check(keyed, valid), known)).toBeUndefined();
    expect(answer(entitlements, check({ ...keyed, authorization: "Bearer am_sk_other" }, valid), known)).toEqual({ status: 401, code: "invalid_secret_key" });
    expect(answer(entitlements, check({ ...keyed, authorization: "Bearer am_sk_other" }, valid))).toBeUndefined();
    expect(answer(entitlements, check({ ...keyed, authorization: "Bearer" }, valid))).toEqual({ status: 401, code: "no_secret_key" });
    // Autumn reads `Bearer ` exactly, and refuses a key without am_sk before it looks one up.
    expect(answer(entitlements, check({ ...keyed, authorization: "Basic abc" }, valid))).toEqual({ status: 401, code: "no_secret_key" });
    expect(answer(entitlements, check({ ...keyed, authorization: "Bearer contract-test-unknown" }, valid))).toEqual({ status: 401, code: "invalid_request" });
  });

  it("answers a route no operation serves, naming the methods that are served there", () => {
    expect(answer(entitlements, { method: "GET", target: "/v1/balances.check", headers: keyed })).toEqual({ status: 404, code: "invalid_request" });
    const reply = entitlements.refusalOf(entitlements.decide({ method: "GET", target: "/v1/balances.check", headers: keyed }));
    expect(reply?.body).toMatchObject({ message: "Method GET is not allowed on /v1/balances.check; allowed: POST" });
  });
});

describe("webdata: the checks in Firecrawl's order", () => {
  const keyed = { authorization: "Bearer fc-0123", ...json };

  it("parses JSON and forms before anything else: a malformed JSON body is refused before the key is looked at", () => {
    expect(answer(webdata, check(json, "{", "/v2/crawl"))).toEqual({ status: 400, code: "BAD_REQUEST_INVALID_JSON" });
    expect(answer(webdata, check({}, "{", "/v2/crawl"))).toEqual({ status: 401, code: "Unauthorized" });
  });

  it("reads a form body as body-parser's extended parser does, and leaves a body of another type unread", () => {
    const form = { ...keyed, "content-type": "application/x-www-form-urlencoded" };
    const served = webdata.decide(check(form, "url=https%3A%2F%2Fexample.com&scrapeOptions[onlyMainContent]=false", "/v2/crawl"));
    expect(served.read?.body).toEqual({ url: "https://example.com", scrapeOptions: { onlyMainContent: "false" } });
    expect(answer(webdata, check(form, "url=https%3A%2F%2Fexample.com", "/v2/crawl"))).toBeUndefined();
    expect(answer(webdata, check(form, "url=https%3A%2F%2Fexample.com&limit=5", "/v2/crawl"))).toEqual({ status: 400, code: "BAD_REQUEST" });
    const text = webdata.decide(check({ ...keyed, "content-type": "text/plain" }, '{"url":"https://example.com"}', "/v2/crawl"));
    expect(text.read?.body).toEqual({});
    expect(problemsAt(text)).toEqual(["body/url is required"]);
  });

  it("a request that carries nothing it should is refused for its key before its parameters", () => {
    expect(answer(webdata, { method: "GET", target: "/v2/team/token-usage", headers: {} })).toEqual({ status: 401, code: "Unauthorized" });
    expect(answer(webdata, { method: "GET", target: "/v2/team/token-usage", headers: keyed })).toBeUndefined();
  });
});

const problemsAt = (decision: { problems: Array<{ in: string; pointer: string; message: string }> }) => decision.problems.map((p) => `${p.in}${p.pointer} ${p.message}`);

describe("a described API of its own (the pet store's facts)", () => {
  const pets = new ApiContract(petFacts(), petStore());

  it("refuses a body of a media type its facts refuse, and words it with its own refusal", () => {
    const request = { method: "POST", target: "/pets", headers: { "x-trace-id": "abc", "content-type": "text/plain" }, body: "Rex" };
    expect(pets.refusalOf(pets.decide(request))).toEqual({ status: 415, body: { title: "unsupported", detail: "text/plain; send application/json" } });
  });

  it("reads the documented parameters as their schemas coerce them", () => {
    const decision = pets.decide({ method: "GET", target: "/pets?limit=3&tags=a&verbose=true", headers: {} });
    expect(decision.read?.query).toEqual({ limit: 3, tags: ["a"], verbose: true });
    expect(pets.decide({ method: "GET", target: "/pets/7", headers: {} }).read?.path).toEqual({ petId: 7 });
  });

  it("a body the operation does not take is not read", () => {
    expect(pets.decide({ method: "GET", target: "/pets", headers: { "content-type": "text/plain" }, body: "{" }).refusal).toBeUndefined();
  });
});
