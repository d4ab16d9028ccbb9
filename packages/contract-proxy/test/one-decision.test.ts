// In strict mode the proxy refuses a request exactly as the API does: the answer of contract-core's
// decision on it, status and body, for every registered API (the third one, Notes, named by
// CONTRACT_API_DIRS, too); a request the decision serves reaches the upstream.
import { afterAll, describe, expect, it } from "vitest";
import { THIRD_API, THIRD_API_DIR } from "@api-contracts/dev-tools/testing";
import { API_DIRS_VARIABLE, contractOf, fillPath, listApis, type IncomingRequest } from "@api-contracts/contract-core";
import { startContractProxy } from "../src/index.js";
import { fakeUpstream, json, send } from "./support.js";

// The registry reads the variable when it is first asked, which is below; each test file runs in a process of its own.
const before = process.env[API_DIRS_VARIABLE];
process.env[API_DIRS_VARIABLE] = THIRD_API_DIR;
afterAll(() => {
  if (before === undefined) delete process.env[API_DIRS_VARIABLE];
  else process.env[API_DIRS_VARIABLE] = before;
});

/** Requests most of which some API refuses: no key, a malformed key, no body, a body that is not JSON or not the API's media type, an empty object, a wrong method, no route. */
function requestsFor(name: string): IncomingRequest[] {
  const contract = contractOf(name);
  const key = `Bearer ${contract.api.key.prefix}0123456789abcdef`;
  const requests: IncomingRequest[] = [{ method: "GET", target: "/no/such/route", headers: { authorization: key } }];
  for (const op of contract.validators.walkedOperations()) {
    const target = fillPath(op.path, {}, () => "0b9f6a7e-4c1d-4e2a-9b3f-5d8c7a6e1f20");
    const json = { "content-type": "application/json" };
    requests.push(
      { method: op.method, target, headers: json, body: "{}" },
      { method: op.method, target, headers: { ...json, authorization: "Basic dXNlcjpwYXNz" }, body: "{}" },
      { method: op.method, target, headers: { ...json, authorization: key } },
      { method: op.method, target, headers: { ...json, authorization: key }, body: "{" },
      { method: op.method, target, headers: { ...json, authorization: key }, body: "{}" },
      { method: op.method, target: `${target}?limit=-1`, headers: { ...json, authorization: key }, body: "{}" },
      { method: op.method, target, headers: { "content-type": "text/plain", authorization: key }, body: "a note" },
      { method: op.method === "DELETE" ? "PATCH" : "DELETE", target, headers: { authorization: key } },
    );
  }
  return requests;
}

describe("strict refusals are the API's decision", () => {
  it("the third API is registered from CONTRACT_API_DIRS", () => {
    expect(listApis().map((api) => api.name)).toContain(THIRD_API);
  });

  for (const { name } of listApis()) {
    it(`${name}: each refused request is answered with the decision's status and body, without reaching the upstream; each served one is forwarded`, async () => {
      const contract = contractOf(name);
      const upstream = await fakeUpstream(json(500, { unexpected: true }));
      const proxy = await startContractProxy({ service: name, upstream: upstream.url, strict: true });
      try {
        let forwarded = 0;
        let refused = 0;
        for (const request of requestsFor(name)) {
          const decision = contract.decide(request);
          const body = request.body === undefined ? undefined : String(request.body);
          // With its length: node:http frames no body of a GET or DELETE by itself.
          const headers = { ...(request.headers as Record<string, string>), ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }) };
          const reply = await send(proxy.url, request.method, request.target, headers, body);
          const what = `${request.method} ${request.target} ${JSON.stringify(request.headers)} ${String(request.body)}`;
          const refusal = contract.refusalOf(decision);
          if (refusal) {
            refused++;
            expect({ status: reply.status, body: reply.json }, what).toEqual(refusal);
          } else forwarded++;
          expect(upstream.received.length, what).toBe(forwarded);
        }
        expect(refused).toBeGreaterThan(0);
      } finally {
        await proxy.close();
        await upstream.close();
      }
    });
  }
});
