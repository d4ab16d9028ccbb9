// The HTTP layer knows no API: given an API's contract and a handler per operation, it serves it.
// The third API (Notes, a folder of its own) proves it.
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractOf, readApiFolder, registerApi } from "@api-contracts/contract-core";
import { listen } from "@api-contracts/contract-core/server";
import { THIRD_API, THIRD_API_DIR } from "@api-contracts/dev-tools/testing";
import { apiListener, apiServer, DEFAULT_HTTP_LIMITS, type ServedApi } from "../src/http.js";

const unregister = registerApi(readApiFolder(THIRD_API_DIR));
afterAll(() => unregister());

const KEY = "nk_test";
const NOTE_ID = "0b9f6a7e-4c1d-4e2a-9b3f-5d8c7a6e1f20";

/** The Notes API with the given handlers (those left out answer 200 `{}`), on an edge server listening on 127.0.0.1. */
async function serveNotes(handlers: ServedApi["handlers"] = {}): Promise<{ url: string; server: Server }> {
  const contract = contractOf(THIRD_API);
  const all = Object.fromEntries(contract.validators.listOperations().map((operation) => [operation.operationId, () => ({ status: 200, body: {} })]));
  const api: ServedApi = { contract, acceptsKey: (key) => key === KEY, handlers: { ...all, ...handlers } };
  const limits = { ...DEFAULT_HTTP_LIMITS, bodyLimitBytes: contract.api.limits.bodyBytes };
  const server = apiServer(api, apiListener(api, limits.bodyLimitBytes), limits);
  const { url } = await listen(server, 0, "127.0.0.1");
  return { url, server };
}

describe("the HTTP layer, serving an API no code here names", () => {
  const seen: unknown[] = [];
  let notes: { url: string; server: Server };
  beforeAll(async () => {
    notes = await serveNotes({
      createNote: (read) => {
        seen.push(read.body);
        return { status: 201, body: { id: NOTE_ID, ...(read.body as object) } };
      },
      getNote: () => {
        throw new Error("a defect in a handler, with details no client should see");
      },
    });
  });
  afterAll(() => new Promise<void>((resolve) => notes.server.close(() => resolve())));

  const post = (body: string, contentType: string, key = KEY) =>
    fetch(`${notes.url}/v1/notes`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": contentType }, body });

  it("runs the operation's handler on a request the decision accepts, with the body as the decision read it", async () => {
    const answer = await post('{"text":"Buy milk","tags":["home"]}', "application/json");
    expect(answer.status).toBe(201);
    expect(seen).toEqual([{ text: "Buy milk", tags: ["home"] }]);
  });

  it("answers every refusal as the decision words it, in the API's own error shape, and runs no handler", async () => {
    const contract = contractOf(THIRD_API);
    for (const [body, type, key] of [
      ['{"text":"x"}', "text/plain", KEY],
      ["{", "application/json", KEY],
      ['{"title":"x"}', "application/json", KEY],
      ['{"text":"x"}', "application/json", "nk_other"],
    ] as const) {
      const answer = await post(body, type, key);
      const decision = contract.decide({ method: "POST", target: "/v1/notes", headers: { authorization: `Bearer ${key}`, "content-type": type }, body }, { acceptsKey: (given) => given === KEY });
      expect({ status: answer.status, body: await answer.json() }).toEqual(contract.refusalOf(decision));
    }
    expect(seen).toHaveLength(1);
  });

  it("a handler that throws is the API's 500, without the error's details", async () => {
    const answer = await fetch(`${notes.url}/v1/notes/${NOTE_ID}`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(answer.status).toBe(500);
    const text = await answer.text();
    expect(JSON.parse(text)).toEqual(contractOf(THIRD_API).reply({ kind: "internal" }).body);
    expect(text).not.toContain("defect");
  });

  it("a body over the API's limit is its 413, and the connection is closed", async () => {
    const answer = await post(`{"text":"${"x".repeat(contractOf(THIRD_API).api.limits.bodyBytes)}"}`, "application/json");
    expect(answer.status).toBe(413);
    expect(answer.headers.get("connection")).toBe("close");
    expect(await answer.json()).toEqual(contractOf(THIRD_API).reply({ kind: "too-large", limit: contractOf(THIRD_API).api.limits.bodyBytes }).body);
  });

  it("refuses to serve an API with an operation it has no handler for", () => {
    const contract = contractOf(THIRD_API);
    expect(() => apiListener({ contract, acceptsKey: () => true, handlers: { listNotes: () => ({ status: 200, body: [] }) } }, 1024)).toThrow(/no handler for createNote, getNote/);
  });
});
