// The kit's generic path against an API it has no module for: the Notes API of
// @api-contracts/dev-tools/testing, registered by CONTRACT_API_DIRS alone (no typed client, no
// fixtures), served by a small server that answers as its decision says.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { THIRD_API, THIRD_API_DIR } from "@api-contracts/dev-tools/testing";
import { listChecks, services } from "../src/index.js";
import { runCli, startDecisionServer, type ApiServer } from "./helpers.js";

// Before anything reads the registry: it is built once, on first use.
vi.stubEnv("CONTRACT_API_DIRS", THIRD_API_DIR);
const KEY = "nk_0123456789abcdef";
let notes: ApiServer;

beforeAll(async () => {
  notes = await startDecisionServer(THIRD_API, { keys: [KEY] });
});
afterAll(async () => {
  await notes?.close();
  vi.unstubAllEnvs();
});

describe("an API registered by CONTRACT_API_DIRS, with no typed client and no fixtures", () => {
  it("is a --service of the command line, beside the spec's APIs", () => {
    expect(services()).toEqual(["entitlements", "webdata", THIRD_API]);
  });

  it("gets the generic checks of every operation: no key, another scheme, malformed JSON and bodies that break the schema", () => {
    const names = listChecks(THIRD_API, "schema").map((check) => `${check.operation}/${check.name}`);
    for (const operation of ["listNotes", "createNote", "getNote"]) expect(names).toEqual(expect.arrayContaining([`${operation}/auth-missing`, `${operation}/auth-wrong-scheme`]));
    expect(names).toEqual(expect.arrayContaining(["createNote/malformed-json", "createNote/invalid-body-missing-text", "createNote/invalid-body-unknown-member"]));
  });

  it("contract-test --service notes passes against a server of the API, every check through a client made from its description", async () => {
    const run = await runCli(["--service", THIRD_API, "--base-url", notes.url, "--api-key", KEY]);
    expect(run.failed, run.out.join("\n")).toEqual([]);
    expect(run.code, run.err.join("\n")).toBe(0);
    expect(run.passed).toEqual(listChecks(THIRD_API, "schema").map((check) => `${check.operation}/${check.name}`));
  });

  it("--generate passes too: valid requests, requests that break one rule, each answered as the decision says", async () => {
    const run = await runCli(["--service", THIRD_API, "--base-url", notes.url, "--api-key", KEY, "--generate", "40", "--seed", "7"]);
    expect(run.failed, run.out.join("\n")).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.passed).toEqual(expect.arrayContaining(["createNote/generated-valid", "createNote/generated-invalid", "listNotes/generated-invalid", "getNote/generated-invalid"]));
  });

  it("the behavior level needs no fixtures for it: the HTTP probes and the unknown key pass against a server on contract-core's edge", async () => {
    const run = await runCli(["--service", THIRD_API, "--base-url", notes.url, "--api-key", KEY, "--level", "behavior", "--timeout", "3000"]);
    expect([...run.failed, ...run.warned], run.out.join("\n")).toEqual([]);
    expect(run.passed).toEqual(expect.arrayContaining(["getNote/auth-unknown-key", "createNote/http-body-over-limit", "createNote/http-stalled-body"]));
  });

  it("init has no fixtures to write for it, and says so", async () => {
    const run = await runCli(["init", "--service", THIRD_API, "--out", "/nonexistent/fixtures.json"]);
    expect(run.code).toBe(2);
    expect(run.err.join("\n")).toMatch(/--service must be one of entitlements, webdata, the APIs whose checks need fixtures \(got "notes"\)/);
  });
});
