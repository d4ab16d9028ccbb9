// An API the proxy has no code for: the Notes API, named only by CONTRACT_API_DIRS (its folder holds
// its bundle and its facts). The command judges its traffic in its own terms and, in strict mode,
// refuses requests and replaces answers with its own error body.
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_DIRS_VARIABLE, contractOf, readApiFolder, type IncomingRequest } from "@api-contracts/contract-core";
import { THIRD_API, THIRD_API_DIR } from "@api-contracts/dev-tools/testing";
import { fakeUpstream, send, runProxyCommand, type Upstream } from "./support.js";

// The contract as the proxy's registry will read it, without registering it in this process.
const notes = contractOf(readApiFolder(THIRD_API_DIR));
const key = `${notes.api.key.prefix}0123456789abcdef`;
const withKey = { authorization: `Bearer ${key}`, "content-type": "application/json" };
const noteId = "0b9f6a7e-4c1d-4e2a-9b3f-5d8c7a6e1f20";

const dir = mkdtempSync(join(tmpdir(), "contract-proxy-third-"));
const report = join(dir, "report.jsonl");
let upstream: Upstream;
let proxy: ReturnType<typeof runProxyCommand>;
let url: string;

beforeAll(async () => {
  // A small Notes server: it stores nothing, and its created note lacks createdAt.
  upstream = await fakeUpstream((req, res, body) => {
    const answer = req.method === "POST" ? { status: 201, body: { id: noteId, text: JSON.parse(body.toString()).text, tags: [] } } : { status: 200, body: { id: noteId, text: "Buy milk", tags: ["home"], createdAt: "2026-11-30T09:00:00Z" } };
    res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body));
  });
  proxy = runProxyCommand(["--service", THIRD_API, "--upstream", upstream.url, "--strict", "--report", report], { [API_DIRS_VARIABLE]: THIRD_API_DIR });
  const exited = once(proxy.child, "exit");
  while (!proxy.out().includes("\n") && proxy.child.exitCode === null) await Promise.race([once(proxy.child.stdout, "data"), exited]);
  url = proxy.out().split("\n")[0]!;
});
afterAll(async () => {
  if (proxy.child.exitCode === null) {
    proxy.child.kill("SIGTERM");
    await once(proxy.child, "exit");
  }
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

const lines = () => readFileSync(report, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line));

describe(`the proxy in front of an API named only by ${API_DIRS_VARIABLE}`, () => {
  it("starts for it", () => {
    expect(url, proxy.err()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("a clean exchange passes through unchanged", async () => {
    const reply = await send(url, "GET", `/v1/notes/${noteId}`, withKey);
    expect(reply.status).toBe(200);
    expect(reply.headers["x-contract-violations"]).toBe("0");
  });

  it("refuses what breaks its request rules with its own answers, exactly the decision's, without reaching the upstream", async () => {
    const received = upstream.received.length;
    const requests: IncomingRequest[] = [
      { method: "POST", target: "/v1/notes", headers: withKey, body: JSON.stringify({ text: "", colour: "red" }) },
      { method: "POST", target: "/v1/notes", headers: { ...withKey, "content-type": "text/plain" }, body: "Buy milk" },
      { method: "POST", target: "/v1/notes", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "Buy milk" }) },
      { method: "GET", target: "/v1/notes?limit=0", headers: withKey },
      { method: "DELETE", target: `/v1/notes/${noteId}`, headers: withKey },
    ];
    const replies = [];
    for (const request of requests) {
      const reply = await send(url, request.method, request.target, request.headers as Record<string, string>, request.body as string | undefined);
      expect({ status: reply.status, body: reply.json }).toEqual(notes.refusalOf(notes.decide(request)));
      replies.push(reply);
    }
    expect(replies.map((reply) => [reply.status, reply.json.error.code])).toEqual([
      [400, "invalid"],
      [415, "unsupported_media_type"],
      [401, "unauthorized"],
      [400, "invalid"],
      [404, "not_found"],
    ]);
    expect(replies[1]!.json.error.message).toBe("Send application/json, not text/plain");
    expect(upstream.received.length).toBe(received);
    const refused = lines().filter((line) => line.direction === "request");
    expect(refused.map((line) => [line.service, line.operationId, line.status, line.errors.map((e: { in: string; pointer: string; keyword: string }) => `${e.in}${e.pointer} ${e.keyword}`)])).toEqual([
      [THIRD_API, "createNote", 400, ["body/colour additionalProperties", "body/text minLength"]],
      [THIRD_API, "createNote", 415, ["header/content-type media-type"]],
      [THIRD_API, "createNote", 401, ["header/authorization authorization"]],
      [THIRD_API, "listNotes", 400, ["query/limit minimum"]],
      [THIRD_API, null, 404, ["path operation"]],
    ]);
    expect(readFileSync(report, "utf8")).not.toContain(key);
  });

  it("judges the upstream's answer by its schema, and replaces one that breaks it with a 502 in its error shape", async () => {
    const reply = await send(url, "POST", "/v1/notes", withKey, JSON.stringify({ text: "Buy milk" }));
    expect(reply.status).toBe(502);
    expect(reply.json).toEqual({ error: { code: "internal", message: expect.stringMatching(/^Bad gateway: the upstream's 201 answer to createNote breaks the contract: body\/createdAt is required/) } });
    expect(lines().at(-1)).toMatchObject({ service: THIRD_API, operationId: "createNote", status: 201, direction: "response", errors: [{ in: "body", pointer: "/createdAt", keyword: "required" }] });
  });
});
