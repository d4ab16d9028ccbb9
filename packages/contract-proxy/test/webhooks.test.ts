// --webhooks: the upstream's webhook calls go through the proxy's second server, are judged, and
// reach the application's receiver unchanged.
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELIVERY_ORDER_GRACE_MS, contractOf, signWebhook } from "@api-contracts/contract-core";
import { jobEventCall } from "@api-contracts/contract-core/server";
import { startServer, type LocalServer } from "@api-contracts/dev-tools/testing";
import { defaultFixtures, startReferenceServer } from "@api-contracts/reference-server";
import { startContractProxy, type ContractProxy } from "../src/index.js";
import { StartedJobs } from "../src/webhooks.js";
import { runProxyCommand } from "./support.js";

const SECRET = "proxy-webhook-secret";
const webdata = contractOf("webdata");
const contract = webdata.validators;
const scheme = contract.webhookSignature!;
const auth = { authorization: `Bearer ${defaultFixtures.api_keys.webdata}`, "content-type": "application/json" };

let upstream: { url: string; close(): Promise<void> };
let receiver: LocalServer;
let proxy: ContractProxy;

beforeAll(async () => {
  upstream = await startReferenceServer({ service: "webdata", webhookSecret: SECRET });
  // The application's receiver: `/down` answers 503, the rest 200 with a body of its own.
  receiver = await startServer((request, res) => void (request.path.startsWith("/app/down") ? res.writeHead(503).end() : res.writeHead(200, { "content-type": "text/plain" }).end("thanks")));
  proxy = await startContractProxy({ service: "webdata", upstream: upstream.url, webhooks: { to: `${receiver.url}/app`, secret: SECRET } });
});
afterAll(async () => {
  await proxy?.close();
  await Promise.all([upstream?.close(), receiver?.close()]);
});

const deliveryLines = () => proxy.violations.filter((line) => line.direction === "delivery");
const relayed = (path: string) => receiver.requests.filter((request) => request.path === path);

/** Starts a crawl through the proxy whose webhook points at the proxy's second server; resolves with its id. */
async function crawl(webhook: Record<string, unknown>, limit = 1): Promise<string> {
  const answer = await fetch(`${proxy.url}/v2/crawl`, { method: "POST", headers: auth, body: JSON.stringify({ url: "https://example.com", limit, webhook }) });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { id: string }).id;
}

/** Posts a call to the proxy's second server as the upstream would, signed unless said otherwise. */
async function call(path: string, payload: unknown, sign = true): Promise<number> {
  const body = JSON.stringify(payload);
  const headers = { "content-type": "application/json", ...(sign ? signWebhook(scheme, body, SECRET) : {}) };
  const answer = await fetch(`${proxy.webhooks}${path}`, { method: "POST", headers, body });
  await answer.arrayBuffer();
  return answer.status;
}

describe("contract-proxy webhooks", () => {
  it("relays a crawl's calls unchanged (body, signature, headers, path and query) and finds nothing wrong with a correct upstream", async () => {
    const before = proxy.counts.deliveries;
    const id = await crawl({ url: `${proxy.webhooks}/hooks?team=docs`, headers: { "X-Team": "docs" }, metadata: { project: "docs" } });
    await expect.poll(() => relayed("/app/hooks?team=docs").length).toBe(3);
    await expect.poll(() => proxy.counts.deliveries - before).toBe(3);
    for (const request of relayed("/app/hooks?team=docs")) {
      expect(contract.validateDelivery({ headers: request.headers, body: request.body }, { secret: SECRET }).errors).toEqual([]);
      expect(request.headers["x-team"]).toBe("docs");
      expect(JSON.parse(request.body)).toMatchObject({ id, metadata: { project: "docs" } });
    }
    expect(relayed("/app/hooks?team=docs").map((request) => JSON.parse(request.body).type)).toEqual(["crawl.started", "crawl.page", "crawl.completed"]);
    expect(deliveryLines()).toEqual([]);
    expect(proxy.counts.violations).toBe(0);
  });

  it("reports what a call breaks: its schema, its signature, and for a crawl started through the proxy its events, metadata, headers and order", async () => {
    const id = await crawl({ url: `${proxy.webhooks}/down/judged`, events: ["completed"], headers: { "X-Team": "docs" }, metadata: { project: "docs" } });
    await expect.poll(() => relayed("/app/down/judged").length).toBe(1);
    const subscription = webdata.webhookSubscription({ method: "POST", path: "/v2/crawl" }, { webhook: { url: "x", events: ["completed"], headers: { "X-Team": "docs" }, metadata: { project: "docs" } } })!;
    const event = (type: string, data: unknown[] = []) => jobEventCall(subscription, { type, id, success: true, data }).payload;
    const seen = deliveryLines().length;
    // Later than calls sent at once may arrive out of order; the receiver's 503 is what the upstream gets back.
    await new Promise((resolve) => setTimeout(resolve, DELIVERY_ORDER_GRACE_MS + 50));
    expect(await call("/down/page", event("crawl.page", [{ metadata: { sourceURL: "https://example.com" } }]))).toBe(503);
    expect(await call("/late", { ...(event("crawl.completed") as object), metadata: {} })).toBe(200);
    expect(await call("/unsigned", event("crawl.started"), false)).toBe(200);
    expect(await call("/off-schema", { ...(event("crawl.page") as object), data: [] })).toBe(200);
    await expect.poll(() => deliveryLines().length - seen).toBe(4);
    const lines = deliveryLines().slice(seen);
    const said = lines.map((line) => `${line.status} ${line.operationId} ${line.path}: ${line.errors.map((e) => `${e.keyword} ${e.in}${e.pointer} ${e.message}`).join("; ")}`);
    expect(said[0]).toMatch(/^503 crawlPage \/down\/page: webhook-events body\/type crawl\.page was delivered; the webhook asked for completed; webhook-headers header\/x-team header X-Team is missing; webhook-order body\/type arrived after crawl\.completed by \d+ ms$/);
    expect(said[1]).toMatch(/^200 crawlCompleted \/late: webhook-metadata body\/metadata metadata \{\} is not the webhook's \{"project":"docs"\}; webhook-headers .*; webhook-order body\/type crawl\.completed was delivered 2 times$/);
    expect(said[2]).toMatch(/^200 crawlStarted \/unsigned: signature header.* X-Firecrawl-Signature is missing; webhook-events .*; webhook-headers .*; webhook-order body\/type arrived after crawl\.completed by \d+ ms$/);
    expect(said[3]).toMatch(/^200 crawlPage \/off-schema: minItems body\/data /);
    expect(proxy.counts.violations).toBe(4);
  });

  it("StartedJobs judges a job's calls in arrival order: a first event late by more than the grace, a last event with no first before it; calls of jobs it did not see start are left alone", () => {
    const jobs = new StartedJobs(webdata);
    const start = { method: "POST", path: "/v2/crawl" };
    const subscription = webdata.webhookSubscription(start, { webhook: "https://hooks.example" })!;
    jobs.note(start, { url: "https://example.com", webhook: "https://hooks.example" }, { success: true, id: "late-start" });
    jobs.note(start, { url: "https://example.com", webhook: "https://hooks.example" }, { success: true, id: "no-start" });
    const payload = (id: string, type: string) => jobEventCall(subscription, { type, id, success: true, data: [] }).payload;
    const said = (id: string, type: string, now: number) => jobs.judge(payload(id, type), {}, now).map((e) => e.message);
    expect(said("late-start", "crawl.page", 1_000)).toEqual([]);
    expect(said("late-start", "crawl.started", 1_400)).toEqual(["arrived before crawl.started by 400 ms"]);
    expect(said("late-start", "crawl.completed", 1_500)).toEqual([]);
    expect(said("no-start", "crawl.completed", 1_000)).toEqual(["no crawl.started was delivered"]);
    expect(said("never-started-here", "crawl.page", 1_000)).toEqual([]);
  });

  it("a call larger than the judging limit is forwarded whole, unjudged, and said so", async () => {
    const small = await startContractProxy({ service: "webdata", upstream: upstream.url, judgeLimit: 1024, webhooks: { to: `${receiver.url}/app` } });
    try {
      const body = JSON.stringify({ type: "crawl.page", padding: "x".repeat(4096) });
      const answer = await fetch(`${small.webhooks}/big`, { method: "POST", headers: { "content-type": "application/json" }, body });
      expect(answer.status).toBe(200);
      expect(relayed("/app/big").map((request) => request.body)).toEqual([body]);
      expect(small.violations.map((line) => [line.direction, line.judged, line.errors[0]?.message])).toEqual([["delivery", false, "not judged: the body is larger than 1024 bytes"]]);
      expect(small.counts).toMatchObject({ deliveries: 1, violations: 0, notJudged: 1 });
    } finally {
      await small.close();
    }
  });

  it("refuses a webhooks target that is not an http URL, naming its scheme and not the credentials in it", async () => {
    await expect(startContractProxy({ service: "webdata", upstream: upstream.url, webhooks: { to: "ftp://files.example" } })).rejects.toThrow(/webhooks\.to must be an http or https URL/);
    const refusal = await startContractProxy({ service: "webdata", upstream: upstream.url, webhooks: { to: "ftp://hooks:s3cret-token@files.example" } }).catch((error: Error) => error.message);
    expect(refusal).toBe("webhooks.to must be an http or https URL, got ftp:");
  });

  it("the command prints the webhook URL on its second line and counts the calls it relayed", async () => {
    const command = runProxyCommand(["--service", "webdata", "--upstream", upstream.url, "--webhooks", `${receiver.url}/app`, "--webhook-secret", SECRET]);
    while (command.out().split("\n").length < 3) await once(command.child.stdout, "data");
    const [url, webhooks] = command.out().split("\n") as [string, string];
    expect(webhooks).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await fetch(`${url}/v2/crawl`, { method: "POST", headers: auth, body: JSON.stringify({ url: "https://example.com", limit: 0, webhook: `${webhooks}/cli` }) });
    await expect.poll(() => relayed("/app/cli").length).toBe(2);
    command.child.kill("SIGTERM");
    await once(command.child, "exit");
    expect(command.out().trim().split("\n").at(-1)).toBe("1 exchange, 0 violations, 2 webhook calls relayed");
    const usage = runProxyCommand(["--service", "webdata", "--upstream", upstream.url, "--webhook-secret", SECRET]);
    const [code] = await once(usage.child, "exit");
    expect(code).toBe(2);
    expect(usage.err()).toContain("--webhook-secret only applies with --webhooks");
  });
});
