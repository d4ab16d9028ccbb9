// One decision, three servers: a corpus of requests (media types, authorization variants, routes,
// parameters, and every request whose live verdict spec/test/live-requests records) is sent to the
// mock, to the reference server and to the strict contract proxy in front of the reference server.
// Each refused request must get from each exactly the answer contract-core's decision gives it
// (status and body); a request the decision serves must be served by each. A server that kept an
// order or a parser of its own would answer some of these otherwise.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractOf, fillPath, isObject, queryString, type ApiContract, type IncomingRequest, type WalkedOperation } from "@api-contracts/contract-core";
import { liveRequests } from "@api-contracts/dev-tools/testing";
import { startMockServer } from "@api-contracts/mock-server";
import { defaultFixtures, startReferenceServer } from "@api-contracts/reference-server";
import { startContractProxy } from "@api-contracts/contract-proxy";

interface Answer {
  status: number;
  body: unknown;
}

/** Sends a request as given: its method, target, headers and body bytes, nothing added but Host and the body's length. */
function send(base: string, request: IncomingRequest): Promise<Answer> {
  const url = new URL(base);
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const headers: Record<string, string | string[]> = { ...(request.headers as Record<string, string>) };
  if (body !== undefined) headers["content-length"] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method: request.method, path: request.target, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed: unknown = text;
        try {
          parsed = text === "" ? undefined : JSON.parse(text);
        } catch {
          // A body that is not JSON is compared as text.
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** A body an operation documents: its first request example, or `{}`. */
function exampleBody(operation: WalkedOperation): unknown {
  const media = operation.requestBody?.media.find((entry) => entry.examples.length > 0);
  return media ? media.examples[0]!.value : undefined;
}

/** A form encoding of a flat object's members, as a browser's form would send them. */
const formOf = (body: unknown) => new URLSearchParams(Object.entries(isObject(body) ? body : {}).filter(([, value]) => typeof value !== "object").map(([name, value]) => [name, String(value)])).toString();

/** The corpus of one API: each operation's example sent every way a client might send it, and the live cases. */
function corpusOf(contract: ApiContract, key: string, ids: Record<string, string>): Array<{ name: string; request: IncomingRequest }> {
  const corpus: Array<{ name: string; request: IncomingRequest }> = [];
  const keyed = { authorization: `Bearer ${key}` };
  for (const operation of contract.validators.walkedOperations()) {
    const target = fillPath(operation.path, ids, () => "3c1a5d9e-6f2b-4b7a-9d1e-8a2f4c6b0e17");
    const body = exampleBody(operation);
    const json = body === undefined ? undefined : JSON.stringify(body);
    const add = (variant: string, request: Omit<IncomingRequest, "method" | "target"> & { method?: string; target?: string }) =>
      corpus.push({ name: `${operation.operationId} ${variant}`, request: { method: operation.method, target, ...request } });
    add("as documented", { headers: { ...keyed, ...(json ? { "content-type": "application/json" } : {}) }, ...(json ? { body: json } : {}) });
    for (const authorization of [undefined, "Bearer", "Bearer  ", "Basic Y29udHJhY3Q6dGVzdA==", `Bearer ${key} extra`, "Bearer a,b"]) {
      add(`with Authorization ${JSON.stringify(authorization)}`, { headers: { ...(authorization === undefined ? {} : { authorization }), ...(json ? { "content-type": "application/json" } : {}) }, ...(json ? { body: json } : {}) });
    }
    add("on a method it does not take", { method: operation.method === "GET" ? "PUT" : "GET", headers: keyed });
    add("on a path under it", { target: `${target}/more`, headers: keyed });
    if (!operation.requestBody) continue;
    for (const type of ["text/plain", "application/merge-patch+json", "application/json; charset=utf-8", "application/xml", "multipart/form-data; boundary=x"]) {
      add(`as ${type}`, { headers: { ...keyed, "content-type": type }, body: json! });
    }
    add("with no Content-Type", { headers: keyed, body: json! });
    add("as a form", { headers: { ...keyed, "content-type": "application/x-www-form-urlencoded" }, body: formOf(body) });
    add("with malformed JSON", { headers: { ...keyed, "content-type": "application/json" }, body: "{" });
    add("with malformed JSON and no key", { headers: { "content-type": "application/json" }, body: "{" });
    add("with no body", { headers: keyed });
    add("with an empty object", { headers: { ...keyed, "content-type": "application/json" }, body: "{}" });
    add("with an array", { headers: { ...keyed, "content-type": "application/json" }, body: "[]" });
  }
  for (const entry of liveRequests(contract.name)) {
    const operation = contract.validators.listOperations().find((op) => op.operationId === entry.operation)!;
    const target = `${entry.path ?? fillPath(operation.path, ids)}${queryString(entry.query ?? {})}`;
    const json = entry.body === undefined ? undefined : JSON.stringify(entry.body);
    corpus.push({
      name: `${entry.operation} live: ${entry.why}`,
      request: { method: operation.method, target, headers: { ...keyed, ...(json ? { "content-type": "application/json" } : {}), ...entry.headers }, ...(json ? { body: json } : {}) },
    });
  }
  return corpus;
}

/** The code of an error body, or its whole self when the API's body has none. */
const shape = (contract: ApiContract, answer: Answer) => ({ status: answer.status, code: contract.codeOf(answer.body) ?? answer.body });

describe.each(["entitlements", "webdata"] as const)("%s: the mock, the reference server and the strict proxy answer as the decision", (service) => {
  const contract = contractOf(service);
  const key = defaultFixtures.api_keys[service];
  const ids: Record<string, string> = { monitorId: defaultFixtures.webdata.monitor_id };
  const corpus = corpusOf(contract, key, ids);
  // What each server knows of keys: the mock none (any key of the API's form is taken), the reference
  // server its fixtures' key; the proxy knows none, and passes on what it does not refuse.
  const knowsNoKey = (request: IncomingRequest) => contract.refusalOf(contract.decide(request));
  const knowsTheKey = (request: IncomingRequest) => contract.refusalOf(contract.decide(request, { acceptsKey: (given) => given === key }));
  const targets: Array<{ name: string; url: string; expected(request: IncomingRequest): ReturnType<typeof knowsNoKey>; close(): Promise<void> }> = [];

  beforeAll(async () => {
    const mock = await startMockServer({ service });
    const reference = await startReferenceServer({ service });
    const proxy = await startContractProxy({ service, upstream: reference.url, strict: true });
    targets.push(
      { name: "mock", expected: knowsNoKey, ...mock },
      { name: "reference server", expected: knowsTheKey, ...reference },
      { name: "proxy", expected: (request) => knowsNoKey(request) ?? knowsTheKey(request), ...proxy },
    );
  });
  afterAll(async () => {
    await Promise.all(targets.map((target) => target.close()));
  });

  it(`holds more than 150 requests, refused and served`, () => {
    const refused = corpus.filter(({ request }) => contract.decide(request).refusal).length;
    expect(refused).toBeGreaterThan(100);
    expect(corpus.length - refused).toBeGreaterThan(20);
  });

  it("every refused request gets the decision's status and body from each server; every served one is served", async () => {
    const disagreements: string[] = [];
    for (const { name, request } of corpus) {
      const decision = contract.decide(request);
      for (const target of targets) {
        const expected = target.expected(request);
        const answer = await send(target.url, request);
        if (expected) {
          if (JSON.stringify(answer) !== JSON.stringify({ status: expected.status, body: expected.body })) {
            disagreements.push(`${name}: ${target.name} answered ${JSON.stringify(shape(contract, answer))}, the decision ${JSON.stringify(shape(contract, expected))}`);
          }
        } else if (answer.status >= 500 || (answer.status === 400 && !contract.stateRefusal(decision.operation!.operationId, answer)) || [401, 413, 415].includes(answer.status)) {
          disagreements.push(`${name}: the decision serves it, ${target.name} answered ${JSON.stringify(shape(contract, answer))}`);
        }
      }
    }
    expect(disagreements).toEqual([]);
  });
});
