// The server makes no decision of its own: every request gets the answer of contract-core's
// decision (route, key, body by the API's media-type policy, parameters, schema, in the live
// service's order), and the business rules run only on what that decision accepted, as it read it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractOf } from "@api-contracts/contract-core";
import { defaultFixtures, type Service } from "../src/index.js";
import { rawRequest, startApi, type ApiUnderTest } from "./helpers.js";

interface Sent {
  method: string;
  target: string;
  headers?: Record<string, string>;
  body?: string;
}

/** The request as bytes on the wire, closing the connection after the answer. */
function wire({ method, target, headers = {}, body }: Sent): string {
  const lines = [`${method} ${target} HTTP/1.1`, "Host: x", ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), `Content-Length: ${Buffer.byteLength(body ?? "")}`, "Connection: close"];
  return `${lines.join("\r\n")}\r\n\r\n${body ?? ""}`;
}

/** The contract's decision on a request sent to a server that knows only the fixtures' key. */
function decided(service: Service, sent: Sent) {
  const contract = contractOf(service);
  const key = defaultFixtures.api_keys[service];
  const decision = contract.decide({ method: sent.method, target: sent.target, headers: sent.headers ?? {}, body: sent.body }, { acceptsKey: (given) => given === key });
  return { decision, refusal: contract.refusalOf(decision) };
}

const json = { "content-type": "application/json" };
const ent = (headers: Record<string, string> = {}) => ({ authorization: `Bearer ${defaultFixtures.api_keys.entitlements}`, ...headers });
const web = (headers: Record<string, string> = {}) => ({ authorization: `Bearer ${defaultFixtures.api_keys.webdata}`, ...headers });
const ids = defaultFixtures.entitlements;
const check = JSON.stringify({ customer_id: ids.customer_id, feature_id: ids.metered_feature_id });

/** Requests each API refuses, one or more for every check of its facts, and requests it serves. */
const CASES: Record<Service, { refused: Array<[string, Sent]>; served: Array<[string, Sent]> }> = {
  entitlements: {
    refused: [
      ["no key", { method: "POST", target: "/v1/balances.check", headers: json, body: check }],
      ["a key the server does not know", { method: "POST", target: "/v1/balances.check", headers: { authorization: "Bearer am_sk_other", ...json }, body: check }],
      ["a key that is not Bearer", { method: "POST", target: "/v1/balances.track", headers: { authorization: "Basic abc", ...json }, body: check }],
      ["no key and a malformed x-api-version: the key is checked first", { method: "POST", target: "/v1/balances.check", headers: { "x-api-version": "latest", ...json }, body: "{" }],
      ["a malformed x-api-version before a malformed body", { method: "POST", target: "/v1/balances.check", headers: ent({ "x-api-version": "latest", ...json }), body: "{" }],
      ["malformed JSON, read as {}", { method: "POST", target: "/v1/balances.check", headers: ent(json), body: "{not json" }],
      ["no body, read as {}", { method: "POST", target: "/v1/balances.finalize", headers: ent() }],
      ["a form body, read as JSON", { method: "POST", target: "/v1/balances.check", headers: ent({ "content-type": "application/x-www-form-urlencoded" }), body: "customer_id=cus_acme&feature_id=messages" }],
      ["a member of the wrong type", { method: "POST", target: "/v1/balances.check", headers: ent(json), body: JSON.stringify({ customer_id: ids.customer_id, feature_id: "messages", required_balance: "x" }) }],
      ["a path no operation serves", { method: "POST", target: "/v1/nothing-here", headers: ent(json), body: check }],
      ["a method the path does not serve", { method: "GET", target: "/v1/balances.check", headers: ent() }],
      ["an undecodable path", { method: "POST", target: "/v1/balances.check%ZZ", headers: ent(json), body: check }],
    ],
    served: [
      ["a JSON body sent as text/plain", { method: "POST", target: "/v1/balances.check", headers: ent({ "content-type": "text/plain" }), body: check }],
      ["a JSON body with no Content-Type", { method: "POST", target: "/v1/check", headers: ent(), body: check }],
      ["a JSON body and a supported x-api-version", { method: "POST", target: "/v1/balances.check?expand=balance.feature", headers: ent({ "x-api-version": "2.4.0", ...json }), body: check }],
    ],
  },
  webdata: {
    refused: [
      ["malformed JSON and no key: the body is read first", { method: "POST", target: "/v2/crawl", headers: json, body: "{" }],
      ["no key", { method: "POST", target: "/v2/crawl", headers: json, body: JSON.stringify({ url: "https://example.com" }) }],
      ["an empty Bearer", { method: "GET", target: "/v2/team/token-usage", headers: { authorization: "Bearer" } }],
      ["a key the server does not know", { method: "GET", target: "/v2/interact", headers: { authorization: "Bearer fc-00000000000000000000000000000000" } }],
      ["a JSON body sent as text/plain, left unread", { method: "POST", target: "/v2/crawl", headers: web({ "content-type": "text/plain" }), body: JSON.stringify({ url: "https://example.com" }) }],
      ["a form body without url", { method: "POST", target: "/v2/crawl", headers: web({ "content-type": "application/x-www-form-urlencoded" }), body: "limit=2" }],
      ["an undeclared body member", { method: "POST", target: "/v2/crawl", headers: web(json), body: JSON.stringify({ url: "https://example.com", cache: true }) }],
      ["an x-idempotency-key that is not a UUID", { method: "POST", target: "/v2/crawl", headers: web({ "x-idempotency-key": "nope", ...json }), body: JSON.stringify({ url: "https://example.com" }) }],
      ["a crawl id that is not a UUID", { method: "DELETE", target: "/v2/crawl/not-a-uuid", headers: web() }],
      ["a monitor id that does not decode", { method: "GET", target: "/v2/monitor/%ZZ", headers: web() }],
      ["a monitor id of 200 characters", { method: "GET", target: `/v2/monitor/${"a".repeat(200)}`, headers: web() }],
      ["a crawl id that is not a UUID", { method: "DELETE", target: "/v2/crawl/not-a-uuid", headers: web() }],
      ["an idempotency key that is not a UUID", { method: "POST", target: "/v2/crawl", headers: { ...web(), "content-type": "application/json", "x-idempotency-key": "key-1" }, body: '{"url":"https://example.com"}' }],
      ["a method the path does not serve", { method: "GET", target: "/v2/crawl", headers: web() }],
      ["a path no operation serves", { method: "GET", target: "/v9/nowhere", headers: web() }],
    ],
    served: [
      ["a form body, read as the service reads one", { method: "POST", target: "/v2/crawl", headers: web({ "content-type": "application/x-www-form-urlencoded" }), body: "url=https%3A%2F%2Fexample.com%2Fform" }],
      ["a query boolean, coerced by its schema", { method: "GET", target: "/v2/team/credit-usage/historical?byApiKey=true", headers: web() }],
      ["an id in upper case", { method: "GET", target: `/v2/monitor/${defaultFixtures.webdata.monitor_id.toUpperCase()}`, headers: web() }],
    ],
  },
};

describe.each(["entitlements", "webdata"] as const)("%s reference server: one decision", (service) => {
  let api: ApiUnderTest;
  beforeAll(async () => {
    api = await startApi(service);
  });
  afterAll(() => api.server.close());

  it.each(CASES[service].refused)("refuses %s exactly as the contract decides", async (_name, sent) => {
    const { refusal } = decided(service, sent);
    expect(refusal, "the contract refuses it").toBeDefined();
    const answer = await rawRequest(api.server.url, wire(sent));
    expect({ status: answer.status, body: answer.body }).toEqual(refusal);
  });

  it.each(CASES[service].served)("serves %s, which the contract accepts", async (_name, sent) => {
    expect(decided(service, sent).decision.refusal).toBeUndefined();
    const answer = await rawRequest(api.server.url, wire(sent));
    expect(answer.status).toBe(200);
  });
});

describe("the business rules read the request as the decision read it", () => {
  let webdata: ApiUnderTest;
  let entitlements: ApiUnderTest;
  beforeAll(async () => {
    [webdata, entitlements] = await Promise.all([startApi("webdata"), startApi("entitlements")]);
  });
  afterAll(() => Promise.all([webdata.server.close(), entitlements.server.close()]));

  it("web data: a form body starts a crawl, and byApiKey=true (a string in the query) splits usage by key", async () => {
    const started = await rawRequest(webdata.server.url, wire(CASES.webdata.served[0]![1]));
    expect(started.body).toMatchObject({ success: true, id: expect.any(String) });
    const history = await webdata.request("GET", "/v2/team/credit-usage/historical?byApiKey=true");
    expect(history.body.periods.every((period: { apiKey?: string }) => typeof period.apiKey === "string")).toBe(true);
  });

  it("entitlements: a JSON body sent as text/plain is checked and deducted like one sent as JSON", async () => {
    const body = JSON.stringify({ customer_id: ids.customer_id, feature_id: ids.metered_feature_id, required_balance: 5, send_event: true });
    const before = (await entitlements.post("/v1/balances.check", JSON.parse(check))).body.balance.remaining;
    const plain = await rawRequest(entitlements.server.url, wire({ method: "POST", target: "/v1/balances.check", headers: ent({ "content-type": "text/plain" }), body }));
    expect(plain.body).toMatchObject({ allowed: true, balance: { remaining: before - 5 } });
  });

  it("a refused request changes nothing: a refused track records no usage", async () => {
    const before = (await entitlements.post("/v1/balances.check", JSON.parse(check))).body.balance.usage;
    const track = JSON.stringify({ customer_id: ids.customer_id, feature_id: ids.metered_feature_id, value: 7 });
    const refused = await rawRequest(entitlements.server.url, wire({ method: "POST", target: "/v1/balances.track", headers: ent({ "x-api-version": "9.0.0", ...json }), body: track }));
    expect(refused.status).toBe(400);
    expect((await entitlements.post("/v1/balances.check", JSON.parse(check))).body.balance.usage).toBe(before);
  });
});
