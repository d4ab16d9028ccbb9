// The offline parts of an Autumn run: its request list, its accepted differences, the manifest
// changes made before `bun install`, and the queue stand-in.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { parseKnownDifferences } from "@api-contracts/contract-core";
import { listChecks } from "@api-contracts/contract-tests";
import { AUTUMN_SEED, autumnFixtures, autumnRequests, judgedRequests, prepareCheckout, REGISTRY_GAPS, startSqsStandIn } from "../src/index.mjs";
import { operationIdsOf } from "./operations.mjs";

const operationIds = operationIdsOf("entitlements");

describe("the Autumn request list", () => {
  const requests = autumnRequests();

  it("sends every judged entitlements request and at least 30 of its own", () => {
    const judged = judgedRequests("entitlements");
    expect(judged.length).toBeGreaterThan(0);
    expect(requests.filter((r) => r.note.startsWith("judged request")).length).toBe(judged.length);
    expect(requests.length - judged.length).toBeGreaterThanOrEqual(30);
  });

  it("asks every entitlements operation with and without a credential", () => {
    for (const id of operationIds) {
      const forms = new Set(requests.filter((r) => r.operation === id).map((r) => r.auth));
      expect([...forms].sort(), id).toEqual(expect.arrayContaining(["bearer", "none"]));
    }
  });

  it("sends a body that is not JSON to check, track and finalize, and finalizes a lock it placed both ways", () => {
    for (const id of ["checkAccess", "trackUsage", "finalizeLock"]) expect(requests.some((r) => r.operation === id && r.raw !== undefined), id).toBe(true);
    for (const action of ["release", "confirm"]) {
      const finalize = requests.findIndex((r) => r.operation === "finalizeLock" && r.body?.action === action && r.body.lock_id?.startsWith("lock_conformance_") && !r.body.lock_id.includes("never"));
      expect(finalize, action).toBeGreaterThan(0);
      const lockId = requests[finalize].body.lock_id;
      expect(requests.slice(0, finalize).some((r) => r.body?.lock?.lock_id === lockId), lockId).toBe(true);
    }
  });

  it("sends no credential in a header of its own", () => {
    for (const r of requests) for (const name of Object.keys(r.headers ?? {})) expect(name.toLowerCase()).not.toBe("authorization");
  });

  it("gives the kit fixtures of the seeded ids", () => {
    expect(autumnFixtures().entitlements).toMatchObject({ customer_id: AUTUMN_SEED.customerId, metered_feature_id: AUTUMN_SEED.meteredFeatureId });
  });
});

describe("known differences of autumn@187c0a7 for the kit", () => {
  const file = path.join(import.meta.dirname, "..", "known-differences", "autumn.json");
  const entries = parseKnownDifferences(JSON.parse(readFileSync(file, "utf8")), file);
  const KINDS = ["version difference of release 187c0a7", "live service configuration", "live differs from its docs", "contract wrong"];

  // The run against 187c0a7 needs none: its HTTP layer's answers to the kit's probes are hygiene
  // (warnings), and every other check passes.
  it("every entry names a documented operation, starts its why with its kind and names its source file and symbol", () => {
    for (const entry of entries) {
      expect(operationIds, entry.operation).toContain(entry.operation);
      expect(KINDS.some((kind) => entry.why.startsWith(`${kind}:`)), entry.why).toBe(true);
      expect(entry.why).toMatch(/useautumn\/autumn@187c0a7fd818 (server|shared)\/\S+\.ts [A-Za-z]+/);
    }
  });

  it("no two entries match the same failure", () => {
    const keys = entries.map((e) => `${e.operation} ${e.check} ${e.reason}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("no entry accepts an HTTP probe's answer: the kit reports the server's parser answers as warnings", () => {
    expect(entries.filter((entry) => entry.check.startsWith("http-")).map((entry) => `${entry.operation} ${entry.check}`)).toEqual([]);
  });

  // An empty list names no check: the kit's list is not asked for.
  it.skipIf(entries.length === 0)("every entry names a check the kit runs against entitlements", () => {
    const checks = new Set(listChecks("entitlements", "behavior").map((c) => `${c.operation} ${c.name}`));
    for (const entry of entries) expect(checks.has(`${entry.operation} ${entry.check}`), `${entry.operation} ${entry.check}`).toBe(true);
  });
});

it("prepareCheckout: leaves out the workspaces and pins the registry lacks, and can run twice", () => {
  const root = mkdtempSync(path.join(tmpdir(), "autumn-manifest-"));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const write = (file, value) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), JSON.stringify(value));
  };
  write("package.json", {
    workspaces: { packages: ["server", "shared", "apps/leaf", "apps/docs"] },
    devDependencies: { "@infisical/cli": "0.43.116", turbo: "2" },
    trustedDependencies: ["@infisical/cli"],
    scripts: { prepare: "husky", postinstall: "bun x", dev: "bun dev" },
  });
  write("server/package.json", { dependencies: { "takumi-js": "1.0.0-rc.17", hono: "4" } });
  write("scripts/package.json", { devDependencies: { "@tinybirdco/sdk": "^0.0.69" } });
  prepareCheckout(root);
  prepareCheckout(root);
  const read = (file) => JSON.parse(readFileSync(path.join(root, file), "utf8"));
  expect(read("package.json")).toMatchObject({ workspaces: { packages: ["server", "shared"] }, devDependencies: { turbo: "2" }, trustedDependencies: [], scripts: { dev: "bun dev" } });
  expect(read("package.json").scripts).not.toHaveProperty("prepare");
  expect(read("server/package.json").dependencies).toEqual({ "takumi-js": REGISTRY_GAPS.pins["takumi-js"], hono: "4" });
  expect(read("scripts/package.json").devDependencies["@tinybirdco/sdk"]).toBe(REGISTRY_GAPS.pins["@tinybirdco/sdk"]);
});

it("the queue stand-in takes a batch as SQS's JSON protocol answers it", async () => {
  const queue = await startSqsStandIn();
  try {
    const response = await fetch(queue.baseUrl, {
      method: "POST",
      headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": "AmazonSQS.SendMessageBatch" },
      body: JSON.stringify({ QueueUrl: `${queue.baseUrl}/000000000000/q.fifo`, Entries: [{ Id: "a", MessageBody: "hello" }] }),
    });
    const body = await response.json();
    expect(body.Failed).toEqual([]);
    expect(body.Successful).toMatchObject([{ Id: "a", MD5OfMessageBody: "5d41402abc4b2a76b9719d911017c592" }]);
    expect(queue.taken).toEqual({ SendMessageBatch: 1 });
  } finally {
    await queue.close();
  }
});

it("the queue stand-in refuses a body longer than SQS takes with 413, and counts it as no message", async () => {
  const queue = await startSqsStandIn();
  try {
    const status = await fetch(queue.baseUrl, {
      method: "POST",
      headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": "AmazonSQS.SendMessage" },
      body: JSON.stringify({ QueueUrl: `${queue.baseUrl}/000000000000/q.fifo`, MessageBody: "x".repeat(1024 * 1024) }),
    }).then((r) => r.status, (error) => String(error));
    expect([413, "TypeError: fetch failed"]).toContain(status);
    expect(queue.taken).toEqual({});
  } finally {
    await queue.close();
  }
});
