// An API the mock has no code for, named only by CONTRACT_API_DIRS: served from its folder alone,
// with its examples and its refusals in its own error shape.
import { THIRD_API, THIRD_API_DIR } from "@api-contracts/dev-tools/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type RunningServer } from "../src/index.js";
import { post, send } from "./support.js";

// The registry reads the variable when it is first asked, which is after this line.
process.env.CONTRACT_API_DIRS = THIRD_API_DIR;

const key = { authorization: "Bearer nk_0123456789" };
const note = { id: "0b9f6a7e-4c1d-4e2a-9b3f-5d8c7a6e1f20", text: "Buy milk", tags: ["home"], createdAt: "2026-11-30T09:00:00Z" };
let mock: RunningServer;

beforeAll(async () => {
  mock = await startMockServer({ service: THIRD_API });
});
afterAll(() => mock?.close());

describe("the mock of an API named by CONTRACT_API_DIRS (Notes)", () => {
  it("serves its documented examples", async () => {
    const list = await send(mock.url, { method: "GET", path: "/v1/notes?limit=5&tag=home", headers: key });
    expect(list.status, list.text).toBe(200);
    expect(list.json).toEqual({ notes: [note] });
    const created = await post(mock.url, "/v1/notes", { text: "Buy milk", tags: ["home"] }, key);
    expect(created.status, created.text).toBe(201);
    expect(created.json).toEqual(note);
    const read = await send(mock.url, { method: "GET", path: `/v1/notes/${note.id}`, headers: key });
    expect(read.json).toEqual(note);
  });

  it("refuses in its own error shape: 401 without a key, 415 for text/plain, 400 for limit=99, 404 for an unknown path", async () => {
    const unauthorized = await send(mock.url, { method: "GET", path: "/v1/notes" });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.json).toEqual({ error: { code: "unauthorized", message: "A valid key is required" } });
    const plain = await send(mock.url, { method: "POST", path: "/v1/notes", headers: { ...key, "content-type": "text/plain" }, body: JSON.stringify({ text: "Buy milk" }) });
    expect(plain.status).toBe(415);
    expect(plain.json).toMatchObject({ error: { code: "unsupported_media_type" } });
    const tooMany = await send(mock.url, { method: "GET", path: "/v1/notes?limit=99", headers: key });
    expect(tooMany.status).toBe(400);
    expect(tooMany.json).toMatchObject({ error: { code: "invalid", message: expect.stringContaining("limit") } });
    const nowhere = await send(mock.url, { method: "GET", path: "/v1/nowhere", headers: key });
    expect(nowhere.status).toBe(404);
    expect(nowhere.json).toEqual({ error: { code: "not_found", message: "No route serves GET /v1/nowhere" } });
  });

  it("chooses answers with Prefer, and refuses a Prefer it cannot keep in the API's shape", async () => {
    const unavailable = await send(mock.url, { method: "GET", path: "/v1/notes", headers: { ...key, prefer: "code=503" } });
    expect(unavailable.status).toBe(503);
    const unknown = await send(mock.url, { method: "GET", path: "/v1/notes", headers: { ...key, prefer: "example=none" } });
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({ error: { code: "invalid", message: expect.stringMatching(/^Prefer example=none is not documented for listNotes; documented: some/) } });
  });
});
