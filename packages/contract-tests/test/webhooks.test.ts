// The webhook stage: passes against the mock, and fails a target for each way its calls can break
// the contract, each fault seen failing its own check and no other.
import { randomUUID } from "node:crypto";
import { readFileSync, rmSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELIVERY_ORDER_GRACE_MS, OpenApiValidators, loadBundle, subscribesTo, webhookSignatureScheme, webhookSubscription } from "@api-contracts/contract-core";
import { WebhookDeliverer, jobEventCall, type WebhookCall } from "@api-contracts/contract-core/server";
import { startMockServer } from "@api-contracts/mock-server";
import { judgeJob } from "../src/webhooks/judge.js";
import { startDeliveryReceiver } from "../src/webhooks/receiver.js";
import { DEFAULT_WEBHOOK_DEADLINE_MS, LATE_CALLS_MS } from "../src/webhooks/stage.js";
import { webhookStageSettings } from "../src/options.js";
import { listChecks, runContractTests } from "../src/index.js";
import { runCli, startFakeTarget, type FakeTarget } from "./helpers.js";

const KEY = "fc-0123456789abcdef0123456789abcdef";
const SECRET = "kit-webhook-secret";
const STAGE = ["webhook-deliveries", "webhook-signature", "webhook-order", "webhook-events", "webhook-metadata"];
const document = loadBundle("webdata");
const webdata = (target: string, ...more: string[]) => ["--service", "webdata", "--base-url", target, "--api-key", KEY, "--level", "webhooks", ...more];

describe("the webhook stage against the mock", () => {
  let mock: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    mock = await startMockServer({ service: "webdata", webhookSecret: SECRET });
  });
  afterAll(() => mock.close());

  it("--level webhooks runs the stage's five checks, and every one passes against the mock's example calls", async () => {
    expect(listChecks("webdata", "webhooks").map((check) => check.name)).toEqual(STAGE);
    expect(listChecks("webdata", "behavior").map((check) => check.name)).toEqual(expect.arrayContaining(STAGE));
    expect(listChecks("webdata", "schema").map((check) => check.name)).not.toContain("webhook-order");
    expect(listChecks("entitlements", "webhooks")).toEqual([]);
    const run = await runCli(webdata(mock.url, "--webhook-secret", SECRET));
    expect(run.failed, run.out.join("\n")).toEqual([]);
    expect(run.passed).toEqual(STAGE.map((name) => `startCrawl/${name}`));
    expect(run.code).toBe(0);
  });

  it("without --webhook-secret the signature check is skipped; with another secret it fails, naming the reason", async () => {
    const unsigned = await runCli(webdata(mock.url));
    expect(unsigned.out.find((line) => line.startsWith("SKIP startCrawl webhook-signature"))).toMatch(/no --webhook-secret/);
    expect(unsigned.out.at(-1)).toBe(`${unsigned.passed.length} passed, 0 failed, 1 skipped`);
    const wrong = await runCli(webdata(mock.url, "--webhook-secret", "another-secret"));
    expect(wrong.failed).toEqual(["startCrawl/webhook-signature"]);
    expect(wrong.out.join("\n")).toMatch(/invalid_signature: X-Firecrawl-Signature does not match/);
    expect(wrong.out.join("\n")).not.toContain("another-secret");
  });

  it("a target elsewhere: the behaviour level skips the stage, saying why; schema and http levels have none", () => {
    const elsewhere = new URL("http://api.example.com");
    expect(webhookStageSettings({ service: "webdata", baseUrl: elsewhere.href }, "behavior", elsewhere)).toEqual({
      unavailable: expect.stringMatching(/^the target \(api\.example\.com\) is not on this machine/),
      secret: undefined,
      deadlineMs: DEFAULT_WEBHOOK_DEADLINE_MS,
    });
    expect(webhookStageSettings({ service: "webdata", baseUrl: elsewhere.href, webhookReceiver: "10.0.0.5:9000" }, "behavior", elsewhere)?.receiver).toEqual({ host: "10.0.0.5", port: 9000 });
    for (const local of ["http://localhost:4010", "http://127.0.0.2:4010", "http://[::1]:4010"]) {
      expect(webhookStageSettings({ service: "webdata", baseUrl: local }, "behavior", new URL(local))?.receiver?.port, local).toBe(0);
    }
    expect(webhookStageSettings({ service: "webdata", baseUrl: "http://[::1]:1" }, "webhooks", new URL("http://[::1]:1"))?.receiver?.host).toBe("::1");
    expect(webhookStageSettings({ service: "webdata", baseUrl: elsewhere.href }, "schema", elsewhere)).toBeUndefined();
    expect(webhookStageSettings({ service: "webdata", baseUrl: elsewhere.href }, "http", elsewhere)).toBeUndefined();
  });

  it("a target elsewhere: --level webhooks is a usage error without --webhook-receiver; a bad receiver too", async () => {
    const run = await runCli(["--service", "webdata", "--base-url", "http://api.example.invalid", "--api-key", KEY, "--level", "webhooks"]);
    expect(run.code).toBe(2);
    expect(run.err.join("\n")).toMatch(/is not on this machine: give a receiver address it can reach \(--webhook-receiver host:port/);
    const everywhere = await runCli(webdata(mock.url, "--webhook-receiver", "0.0.0.0:0"));
    expect(everywhere.code).toBe(2);
    expect(everywhere.err.join("\n")).toMatch(/needs --webhook-url/);
    const bad = await runCli(webdata(mock.url, "--webhook-receiver", "localhost"));
    expect(bad.err.join("\n")).toMatch(/must be host:port/);
    const none = await runCli(["--service", "entitlements", "--base-url", mock.url, "--api-key", "am_sk_test_1", "--level", "webhooks"]);
    expect(none.code).toBe(2);
    expect(none.err.join("\n")).toMatch(/no selected operation of entitlements takes a webhook in its requests/);
  });

  it("--webhook-receiver and --webhook-url say where the receiver listens and what the target calls", async () => {
    const probe = await startDeliveryReceiver("127.0.0.1", 0);
    const port = Number(new URL(probe.origin).port);
    await probe.close();
    const run = await runCli(webdata(mock.url, "--webhook-receiver", `127.0.0.1:${port}`, "--webhook-url", `http://localhost:${port}/`, "--webhook-secret", SECRET, "--report", reportFile("receiver.json")));
    expect(run.failed, run.out.join("\n")).toEqual([]);
    expect(run.passed).toHaveLength(STAGE.length);
  });
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "kit-webhooks-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const reportFile = (name: string) => path.join(dir, name);

/** What a fault target does wrong with a crawl's calls (or, for the last three, does differently without breaking the contract). */
type Fault = "none" | "wrong-signature" | "no-started" | "page-after-completed" | "ignores-events" | "drops-metadata" | "off-schema" | "silent" | "other-path" | "rate-limited" | "out-of-credits" | "adds-query";

/** The documented refusals of a crawl start a client backs off from, as the fault target answers them. */
const REFUSALS = { "rate-limited": { status: 429, error: "Request rate limit exceeded. Please wait and try again later." }, "out-of-credits": { status: 402, error: "Payment required to access this resource." } } as const;

/**
 * A web data target that answers every crawl start and calls its webhook as the contract says,
 * except for one fault. Its calls go one after another, signed with SECRET.
 */
async function startFaultTarget(): Promise<FakeTarget & { fault: Fault; hooks: string[] }> {
  const signature = webhookSignatureScheme(document);
  const right = new WebhookDeliverer({ signature, secret: SECRET });
  const wrong = new WebhookDeliverer({ signature, secret: "not-the-secret" });
  let target: FakeTarget & { fault: Fault; hooks: string[] };
  const fake = await startFakeTarget(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
    const id = randomUUID();
    const fault = target.fault;
    if (fault === "rate-limited" || fault === "out-of-credits") {
      const { status, error } = REFUSALS[fault];
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ success: false, error }));
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ success: true, id, url: `http://127.0.0.1/v2/crawl/${id}` }));
    const subscription = webhookSubscription(document, { method: "POST", path: "/v2/crawl" }, body, "webhook");
    if (subscription) target.hooks.push(subscription.url);
    if (!subscription || fault === "silent") return;
    const asked =
      fault === "ignores-events"
        ? { ...subscription, events: [] }
        : fault === "drops-metadata"
          ? { ...subscription, metadata: {} }
          : fault === "other-path"
            ? { ...subscription, url: new URL("/hooks/crawl", subscription.url).href }
            : fault === "adds-query"
              ? { ...subscription, url: `${subscription.url}?source=crawl` }
              : subscription;
    const page = { markdown: "# Page", metadata: { sourceURL: String(body.url), statusCode: 200 } };
    const events = [
      ...(fault === "no-started" ? [] : [{ type: "crawl.started", id, success: true, data: [] }]),
      { type: "crawl.page", id, success: true, data: fault === "off-schema" ? [] : [page] },
      { type: "crawl.completed", id, success: true, data: [] },
    ];
    const calls: WebhookCall[] = events.filter((event) => subscribesTo(asked, event.type)).map((event) => jobEventCall(asked, event));
    const sender = fault === "wrong-signature" ? wrong : right;
    const sequence = sender.sequence();
    sequence.push(...calls);
    if (fault === "page-after-completed" && subscribesTo(asked, "crawl.page")) {
      await sequence.idle();
      // Later than the order's grace (a timer never fires early), well before the kit stops listening.
      expect(DELIVERY_ORDER_GRACE_MS + 100).toBeLessThan(LATE_CALLS_MS / 2);
      await new Promise((resolve) => setTimeout(resolve, DELIVERY_ORDER_GRACE_MS + 100));
      sequence.push(jobEventCall(asked, { type: "crawl.page", id, success: true, data: [page] }));
    }
  });
  target = Object.assign(fake, { fault: "none" as Fault, hooks: [] as string[] });
  const close = fake.close;
  target.close = async () => {
    await Promise.all([right.close(), wrong.close()]);
    await close();
  };
  return target;
}

describe("the webhook stage against targets that break the contract", () => {
  let target: Awaited<ReturnType<typeof startFaultTarget>>;
  beforeAll(async () => {
    target = await startFaultTarget();
  });
  afterAll(() => target.close());

  it("a target without a fault passes (the faults below are its only difference)", async () => {
    target.fault = "none";
    const run = await runCli(webdata(target.url, "--webhook-secret", SECRET));
    expect(run.failed, run.out.join("\n")).toEqual([]);
  });

  it.each([
    ["wrong-signature", "webhook-signature", /invalid_signature/],
    ["no-started", "webhook-order", /no crawl\.started was delivered/],
    ["page-after-completed", "webhook-order", /call #4 \(crawl\.page, at \+\d+ ms\): arrived after crawl\.completed by \d+ ms$/m],
    ["ignores-events", "webhook-events", /the job asking for started and completed: call #2 \(crawl\.page, at \+\d+ ms\): crawl\.page was delivered; the webhook asked for started, completed/],
    ["drops-metadata", "webhook-metadata", /metadata \{\} is not the webhook's \{"contract_test":"\w+","job":"every-event"\}/],
    ["off-schema", "webhook-deliveries", /crawl\.page.*data must NOT have fewer than 1 items|data.*fewer than 1/],
  ] as const)("%s fails %s, and only it, with the crawl request as curl and what was received", async (fault, check, reason) => {
    target.fault = fault;
    const reportPath = reportFile(`${fault}.json`);
    const run = await runCli(webdata(target.url, "--webhook-secret", SECRET, "--report", reportPath));
    expect(run.failed, run.out.join("\n")).toEqual([`startCrawl/${check}`]);
    expect(run.code).toBe(1);
    const text = run.out.join("\n");
    expect(text).toMatch(reason);
    expect(text).toMatch(/started with: curl -sS 'http:\/\/127\.0\.0\.1:\d+\/v2\/crawl' -H "Authorization: Bearer \$API_KEY" -H 'Content-Type: application\/json' --data-raw '\{"url":"https:\/\/example\.com","limit":2,"webhook":\{"url":"http:\/\/127\.0\.0\.1:\d+\//);
    expect(text).toMatch(/ received: #1 \+0 ms crawl\.\w+/);
    const report = JSON.parse(readFileSync(reportPath, "utf8"));
    const result = report.operations.startCrawl.checks.find((c: { check: string }) => c.check === check);
    expect(result.evidence.length).toBeGreaterThanOrEqual(2);
  });

  it("a target that never calls fails webhook-deliveries alone within --webhook-deadline (the other checks, with no call to judge, are skipped), and the run stays bounded", async () => {
    target.fault = "silent";
    const began = performance.now();
    const run = await runCli(webdata(target.url, "--webhook-secret", SECRET, "--webhook-deadline", "300"));
    expect(performance.now() - began).toBeLessThan(10_000);
    // One cause, one failure: no "no crawl.completed" on top of "no call arrived".
    expect(run.failed).toEqual(["startCrawl/webhook-deliveries"]);
    expect(run.passed).toEqual([]);
    expect(run.out.join("\n")).toMatch(/no call arrived within 3\d\d ms/);
    expect(run.out.join("\n")).not.toMatch(/no crawl\.completed within/);
    for (const check of STAGE.slice(1)) expect(run.out.find((line) => line.startsWith(`SKIP startCrawl ${check}:`)), check).toMatch(/no call arrived from any job \(startCrawl webhook-deliveries says why\)$/);
    // The likely cause, said once the receiver has heard from no job at all.
    expect(run.out.find((line) => line.startsWith("FAIL startCrawl webhook-deliveries"))).toMatch(/got no call from any job: a target that does not call private addresses .* needs an address it can reach \(--webhook-receiver host:port/);
  });

  it("a run stopped while the receiver waits ends at once: the receiver closes, every check not finished is skipped, and the report of what ran is returned", async () => {
    target.fault = "silent";
    const probe = await startDeliveryReceiver("127.0.0.1", 0);
    const port = Number(new URL(probe.origin).port);
    await probe.close();
    const stopping = new AbortController();
    const began = performance.now();
    const running = runContractTests({ service: "webdata", baseUrl: target.url, apiKey: KEY, level: "webhooks", webhookReceiver: `127.0.0.1:${port}`, webhookDeadlineMs: 60_000, signal: stopping.signal });
    // Both jobs started with the receiver's webhook (the preflight's requests name none of its): the receiver waits for their calls.
    while (target.hooks.filter((url) => url.startsWith(`http://127.0.0.1:${port}/`)).length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    const requestsBefore = target.requests;
    stopping.abort("SIGTERM");
    const report = await running;
    expect(performance.now() - began).toBeLessThan(10_000);
    expect([report.passed, report.failed, report.skipped]).toEqual([0, 0, STAGE.length]);
    const reasons = report.operations.startCrawl!.checks.map((check) => check.reason);
    expect(reasons).toEqual(["not finished: the run was stopped", ...STAGE.slice(1).map(() => "not run: the run was stopped")]);
    expect(target.requests).toBe(requestsBefore);
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow(TypeError);
  });

  it("a target that calls other paths of the receiver fails webhook-deliveries alone, and the hint counts those calls instead of blaming the address", async () => {
    target.fault = "other-path";
    const run = await runCli(webdata(target.url, "--webhook-secret", SECRET, "--webhook-deadline", "300"));
    expect(run.failed).toEqual(["startCrawl/webhook-deliveries"]);
    const line = run.out.find((line) => line.startsWith("FAIL startCrawl webhook-deliveries"));
    // Three calls of the job with every event and two of the other, all to /hooks/crawl.
    expect(line).toMatch(/got no call from any job at the paths it gave, but 5 calls to other paths: the target reaches it and calls another URL than the webhook's/);
    expect(line).not.toMatch(/does not call private addresses/);
  });

  it("a target that adds a query to the webhook URL is judged on its calls: the receiver matches the path alone", async () => {
    target.fault = "adds-query";
    const run = await runCli(webdata(target.url, "--webhook-secret", SECRET, "--webhook-deadline", "10000"));
    expect(run.failed, run.out.join("\n")).toEqual([]);
    expect(run.passed).toEqual(STAGE.map((name) => `startCrawl/${name}`));
  });

  it.each([
    ["rate-limited", 429],
    ["out-of-credits", 402],
  ] as const)("a crawl start answered %s (%i, documented: a client backs off) skips the stage, saying so, and fails nothing", async (fault, status) => {
    target.fault = fault;
    const run = await runCli(webdata(target.url, "--webhook-secret", SECRET, "--webhook-deadline", "300"));
    expect(run.failed, run.out.join("\n")).toEqual([]);
    expect(run.code).toBe(0);
    const deliveries = run.out.find((line) => line.startsWith("SKIP startCrawl webhook-deliveries:"));
    expect(deliveries).toMatch(new RegExp(`not run: starting the job with every event was answered ${status} \\(${fault === "rate-limited" ? "rate limited" : "out of credits"}\\)`));
    expect(deliveries).toContain(REFUSALS[fault].error);
    for (const check of STAGE.slice(1)) expect(run.out.find((line) => line.startsWith(`SKIP startCrawl ${check}:`)), check).toMatch(/startCrawl webhook-deliveries says why/);
  });

  it("JUnit carries a failure's evidence", async () => {
    target.fault = "drops-metadata";
    const junit = reportFile("webhooks.xml");
    await runCli(webdata(target.url, "--webhook-secret", SECRET, "--junit", junit));
    const xml = readFileSync(junit, "utf8");
    expect(xml).toMatch(/<testcase classname="webdata.startCrawl" name="webhook-metadata"[^>]*>[\s\S]*?<failure message="the job with every event: call #1[\s\S]*?started with: curl[\s\S]*?received: #1/);
  });
});

describe("judgeJob", () => {
  const kind = { events: ["crawl.started", "crawl.page", "crawl.completed"], first: "crawl.started", last: "crawl.completed" };
  const subscription = webhookSubscription(document, { method: "POST", path: "/v2/crawl" }, { webhook: "http://127.0.0.1/hook" }, "webhook")!;
  const id = randomUUID();
  const call = (type: string, at: number) => {
    const { payload } = jobEventCall(subscription, { type, id, success: true, data: type === "crawl.page" ? [{ metadata: {} }] : [] });
    return { at, method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(payload), type };
  };
  const order = (...calls: Array<[string, number]>) =>
    judgeJob({ name: "the job", subscription, id, calls: calls.map(([type, at]) => call(type, at)), refused: { tooLarge: 0, overCap: 0 }, waitedMs: 1000 }, kind, { validators: new OpenApiValidators(document), graceMs: 250 })
      .filter((finding) => finding.concern === "order")
      .map((finding) => `${finding.severity}: ${finding.text}`);

  it("calls in order have nothing to say", () => {
    expect(order(["crawl.started", 0], ["crawl.page", 5], ["crawl.completed", 9])).toEqual([]);
  });

  it("a call out of order by at most the grace is a warning (calls sent at once may arrive so), by more a failure", () => {
    expect(order(["crawl.started", 0], ["crawl.completed", 10], ["crawl.page", 110])).toEqual([
      "warning: call #3 (crawl.page, at +110 ms): arrived after crawl.completed by 100 ms (within 250 ms: calls sent at once may arrive so; a receiver that orders by event is not harmed)",
    ]);
    expect(order(["crawl.page", 0], ["crawl.started", 400], ["crawl.completed", 401])).toEqual(["failure: call #1 (crawl.page, at +0 ms): arrived before crawl.started by 400 ms"]);
  });

  it("twice the first or the last event, or no last event, is a failure", () => {
    expect(order(["crawl.started", 0], ["crawl.started", 1], ["crawl.completed", 2])).toEqual(["failure: crawl.started was delivered 2 times"]);
    expect(order(["crawl.started", 0], ["crawl.completed", 1], ["crawl.completed", 2])).toEqual(["failure: crawl.completed was delivered 2 times"]);
    expect(order(["crawl.started", 0], ["crawl.page", 1])).toEqual(["failure: no crawl.completed within 1000 ms"]);
  });

  it("no call at all is one finding, of the deliveries: not also a missing last event", () => {
    const findings = judgeJob({ name: "the job", subscription, id, calls: [], refused: { tooLarge: 0, overCap: 0 }, waitedMs: 1000 }, kind, { validators: new OpenApiValidators(document), graceMs: 250 });
    expect(findings.map((finding) => `${finding.concern} ${finding.severity}: ${finding.text}`)).toEqual(["deliveries failure: no call arrived within 1000 ms"]);
  });
});

describe("the kit's receiver", () => {
  it("keeps calls to the paths it expects; refuses a body over its limit, calls past its cap and strays", async () => {
    const receiver = await startDeliveryReceiver("127.0.0.1", 0, { maxBodyBytes: 100, maxCallsPerPath: 2, maxPaths: 2 });
    try {
      receiver.expect("/a");
      const post = (path: string, body: string) => fetch(`${receiver.origin}${path}`, { method: "POST", body }).then((res) => res.status);
      expect(await post("/a", "{}")).toBe(200);
      expect(await post("/a", "x".repeat(101))).toBe(413);
      // A query the target adds does not make the call a stray; its event is read as it arrives.
      expect(await post("/a?source=crawl", '{"type":"crawl.page"}')).toBe(200);
      expect(await post("/a", "{}")).toBe(503);
      expect(await post("/elsewhere", "{}")).toBe(404);
      expect(receiver.calls("/a").map((call) => [call.body, call.type])).toEqual([
        ["{}", undefined],
        ['{"type":"crawl.page"}', "crawl.page"],
      ]);
      expect(receiver.refused("/a")).toEqual({ tooLarge: 1, overCap: 1 });
      expect(receiver.strays).toBe(1);
      receiver.expect("/b");
      expect(() => receiver.expect("/c")).toThrow(/at most 2 paths/);
      expect(await receiver.waitFor("/b", (calls) => calls.length > 0, 50)).toBe(false);
    } finally {
      await receiver.close();
    }
  });
});
