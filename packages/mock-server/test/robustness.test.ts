import { contractOf } from "@api-contracts/contract-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type RunningServer } from "../src/index.js";
import { badRequests, shapes } from "./bad-requests.js";
import { documentedErrorValidator, send, type Outgoing, type Reply, type Service } from "./support.js";

const PER_API = 1100;
const CONCURRENCY = 8;
const servers = new Map<Service, RunningServer>();

beforeAll(async () => {
  for (const service of ["webdata", "entitlements"] as const) servers.set(service, await startMockServer({ service }));
});
afterAll(async () => {
  await Promise.all([...servers.values()].map((s) => s.close()));
});

async function sendAll(url: string, requests: Array<Outgoing & { kind: string }>) {
  const replies: Array<{ request: Outgoing & { kind: string }; reply: Reply }> = [];
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const request = requests[next++]!;
      replies.push({ request, reply: await send(url, request) });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return replies;
}

describe.each(["webdata", "entitlements"] as const)("%s mock under generated bad requests", (service) => {
  it(`answers ${PER_API} bad requests with the API's decision on each (its status and body exactly), then still serves valid requests`, async () => {
    const url = servers.get(service)!.url;
    const shape = shapes[service];
    const requests = [...badRequests(shape, PER_API, service === "webdata" ? 2024 : 4011)];
    expect(new Set(requests.map((r) => r.kind)).size).toBeGreaterThanOrEqual(11);
    const isDocumentedError = documentedErrorValidator(service);
    const replies = await sendAll(url, requests);
    // The mock's refusal of each is the one decision's: contract-core's, which the reference server and the proxy answer with too.
    const contract = contractOf(service);
    const decided = ({ method, path, headers = {}, body }: Outgoing) => {
      const size = body === undefined ? 0 : Buffer.byteLength(body);
      if (size > contract.api.limits.bodyBytes) return contract.reply({ kind: "too-large", limit: contract.api.limits.bodyBytes });
      return contract.refusalOf(contract.decide({ method, target: path, headers, ...(body === undefined ? {} : { body }) }));
    };
    // A request is bad only as its API reads it: Firecrawl reads a key from `Basic x` too, and a mock knows no keys.
    const refused = replies.filter(({ request }) => decided(request) !== undefined);
    expect(refused.length).toBeGreaterThan(PER_API * 0.9);
    const wrong = refused.filter(({ reply }) => reply.status < 400 || reply.status >= 500 || !isDocumentedError(reply.json));
    expect(
      wrong.slice(0, 5).map(({ request, reply }) => `${request.kind} ${request.method} ${request.path} -> ${reply.status} ${reply.text.slice(0, 200)}`),
    ).toEqual([]);
    expect(replies).toHaveLength(PER_API);
    const differing = replies.filter(({ request, reply }) => {
      const expected = decided(request);
      if (expected === undefined) return reply.status < 200 || reply.status >= 300;
      return reply.status !== expected.status || JSON.stringify(reply.json) !== JSON.stringify(expected.body);
    });
    expect(differing.slice(0, 5).map(({ request, reply }) => `${request.kind} ${request.method} ${request.path} -> ${reply.status} ${reply.text.slice(0, 200)}; decided ${JSON.stringify(decided(request)).slice(0, 200)}`)).toEqual([]);

    for (const target of shape.targets) {
      const reply = await send(url, {
        method: target.method,
        path: target.path,
        headers: { authorization: shape.auth, "content-type": "application/json" },
        ...(target.body ? { body: JSON.stringify(target.body) } : {}),
      });
      expect(reply.status, `${target.method} ${target.path}`).toBe(200);
    }
  });
});
