// One exchange, one verdict: the recorded answers of Firecrawl and Autumn, their webhook deliveries
// and faulty exchanges built for the purpose, judged through the kit (Contract.judge, judgeJob),
// the proxy (a live contract-proxy in front of a server that replays each answer, its webhook relay
// taking each delivery) and conformance (disagreements, deliveryDisagreements), must give the same
// problems, worded the same way; each request, sent as recorded, gets the same decision from the
// proxy as from conformance.
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractOf, describeProblem, loadBundle, summarizeAnswer, summarizeProblems } from "@api-contracts/contract-core";
import { Contract, judgeJob } from "@api-contracts/contract-tests";
import { startContractProxy } from "@api-contracts/contract-proxy";
import { wireRequest } from "../src/exchanges.mjs";
import { RECORDED_SERVERS, WEBHOOK_SECRET, answerText, decisionOn, deliveryDisagreements, disagreements, readRecords, recordedDir, runKeyOf } from "../src/judgement.mjs";

/** A server that answers each request with the recorded answer its `x-replay` header names, and takes webhook calls. */
async function replayServer() {
  const answers = new Map();
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const answer = answers.get(req.headers["x-replay"]);
      if (!answer) return res.writeHead(200).end();
      res.writeHead(answer.status, answer.contentType ? { "content-type": answer.contentType } : {}).end(answer.bodyText);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, answers, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** The faulty exchanges: each a recorded-format exchange that breaks one rule. */
function faultyExchanges(server, exchanges) {
  const firstOf = (operation, status) => structuredClone(exchanges.find((item) => item.operation === operation && item.status === status && item.authorization === "bearer"));
  const made = (item, change, note) => ({ ...item, ...change, note });
  if (server === "autumn") {
    const check = firstOf("checkAccess", 200);
    const { customer_id: _dropped, ...withoutCustomer } = check.responseBody;
    const denied = structuredClone(loadBundle("entitlements").components.examples["check-denied-usage-limit"].value);
    return [
      made(check, { responseBody: withoutCustomer }, "a check answer without customer_id"),
      made(check, { responseBody: { ...denied, preview: { ...denied.preview, scenario: "bogus" } } }, "a check answer with a bad preview.scenario"),
      made(check, { status: 418 }, "an undocumented status"),
      made(check, { contentType: "text/plain", responseBody: JSON.stringify(check.responseBody) }, "a wrong content type"),
      made(check, { contentType: "", responseBody: JSON.stringify(check.responseBody) }, "no content type"),
    ];
  }
  const cancel = firstOf("cancelCrawl", 200);
  const crawl = firstOf("startCrawl", 200);
  return [
    made(cancel, { contentType: "application/json", responseBody: "{oops" }, "invalid JSON"),
    made(crawl, { status: 201 }, "a status the operation does not document"),
    made(crawl, { requestBody: { ...crawl.requestBody, limit: "10" } }, "an accepted request the contract refuses"),
  ];
}

describe.each(Object.keys(RECORDED_SERVERS))("%s: the kit, the proxy and conformance judge each exchange alike", (server) => {
  const service = RECORDED_SERVERS[server];
  const records = readRecords(path.join(recordedDir(), server));
  const recorded = [...records.exchanges, ...records.webhookCrawls.map((crawl) => crawl.start)].filter((item) => item.operation !== null);
  const exchanges = [...recorded, ...faultyExchanges(server, recorded)];
  const contract = contractOf(service);
  const kit = new Contract(contract);
  let upstream;
  let proxy;
  /** What the proxy reported for each exchange, by direction. */
  const byProxy = [];

  beforeAll(async () => {
    upstream = await replayServer();
    proxy = await startContractProxy({ service, upstream: upstream.url });
    for (const [index, item] of exchanges.entries()) {
      const bodyText = answerText(item);
      upstream.answers.set(String(index), { status: item.status, contentType: item.contentType, bodyText });
      // As sent, with the run's key standing in for the Bearer one a record never holds.
      const sent = wireRequest(item, runKeyOf(contract));
      const before = proxy.violations.length;
      const answer = await fetch(`${proxy.url}${sent.target}`, { method: sent.method, headers: { ...sent.headers, "x-replay": String(index) }, body: sent.body });
      await answer.arrayBuffer();
      const lines = proxy.violations.slice(before);
      byProxy.push({
        request: lines.filter((line) => line.direction === "request").flatMap((line) => line.errors),
        response: lines.filter((line) => line.direction === "response").flatMap((line) => line.errors),
      });
    }
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  it("holds recorded and faulty exchanges, and the faulty ones break the contract", () => {
    expect(recorded.length).toBeGreaterThan(40);
    for (const index of exchanges.keys()) if (index >= recorded.length) expect(byProxy[index].request.length + byProxy[index].response.length, exchanges[index].note).toBeGreaterThan(0);
  });

  it("every answer: the kit's problems are the proxy's, its reason is their one-line summary, and conformance lists the same problems", () => {
    const differ = [];
    for (const [index, item] of exchanges.entries()) {
      const bodyText = answerText(item);
      const verdict = kit.judge({ method: item.method, path: item.path, status: item.status, contentType: item.contentType || null, bodyText });
      const proxied = byProxy[index].response;
      const conformance = disagreements(contract, item).filter((one) => one.check === "response").map((one) => one.text.slice("response: ".length).split(" -- ")[0]);
      const said = {
        kit: { ok: verdict.ok, problems: verdict.problems, reason: verdict.ok ? "" : verdict.reason },
        proxy: { ok: proxied.length === 0, problems: proxied, reason: proxied.length === 0 ? "" : summarizeAnswer(item.status, proxied) },
      };
      const listed = proxied.length === 0 ? [] : [summarizeAnswer(item.status, proxied, Infinity)];
      if (JSON.stringify(said.kit) !== JSON.stringify(said.proxy) || JSON.stringify(conformance) !== JSON.stringify(listed)) differ.push({ note: item.note, status: item.status, ...said, conformance });
    }
    expect(differ).toEqual([]);
  });

  it("the faulty answers read the same everywhere: a missing member at its pointer, a bad enum as one problem", () => {
    const faulty = exchanges.slice(recorded.length).map((item, index) => ({ note: item.note, lines: byProxy[recorded.length + index].response.map((p) => `${p.in}${p.pointer} ${p.message}`) }));
    if (server === "autumn") {
      expect(faulty[0].lines).toEqual(["body/customer_id is required"]);
      expect(faulty[1].lines).toHaveLength(1);
      expect(faulty[1].lines[0]).toMatch(/^body\/preview\/scenario must be one of "/);
      expect(faulty[2].lines).toEqual([expect.stringMatching(/^status 418 is not documented for checkAccess; documented: /)]);
      expect(faulty[3].lines).toEqual([expect.stringMatching(/^header\/content-type is 'text\/plain', which a 200 answer to checkAccess does not take/)]);
      expect(faulty[4].lines).toEqual([expect.stringMatching(/^header\/content-type is missing, which a 200 answer/)]);
    } else {
      expect(faulty[0].lines).toEqual(["body is not valid JSON"]);
      expect(faulty[1].lines).toEqual([expect.stringMatching(/^status 201 is not documented for startCrawl/)]);
    }
  });

  it("every request: the proxy's problems with it are those of the decision conformance judges it by, and an accepted one's are those conformance holds against the acceptance", () => {
    const differ = [];
    for (const [index, item] of exchanges.entries()) {
      const decision = decisionOn(contract, item);
      // The proxy cannot know which keys the server takes and passes any well-formed one; conformance knows the run's key alone.
      const unknownKey = decision.refusal?.kind === "unauthorized" && decision.refusal.reason === "unknown-key";
      const [proxied, decided] = [byProxy[index].request.map(describeProblem), unknownKey ? [] : decision.problems.map(describeProblem)];
      const held = disagreements(contract, item).filter((one) => ["verdict", "auth"].includes(one.check)).map((one) => one.text.split(" -- ")[0]);
      const accepted = item.status >= 200 && item.status < 300;
      const expected = accepted && decision.refusal ? [`${decision.refusal.kind === "unauthorized" ? "auth" : "verdict"}: live accepted (${item.status}), the contract refuses: ${summarizeProblems(decision.problems, Infinity)}`] : [];
      // The proxy's report cuts a long message (a pattern quoted whole) and marks the cut.
      const alike = proxied.length === decided.length && proxied.every((line, i) => line === decided[i] || (line.endsWith("…") && decided[i].startsWith(line.slice(0, -1))));
      if (!alike || (accepted && JSON.stringify(held) !== JSON.stringify(expected))) differ.push({ note: item.note, proxied, decided, held });
    }
    expect(differ).toEqual([]);
  });
});

describe("firecrawl's webhook deliveries: the kit, the proxy and conformance find the same", () => {
  const contract = contractOf("webdata");
  const { webhookCrawls } = readRecords(path.join(recordedDir(), "firecrawl"));
  const events = contract.jobEvents("startCrawl");
  const signed = (rawBody, secret) => `sha256=${createHmac("sha256", secret).update(rawBody).digest("hex")}`;
  const base = webhookCrawls[0];
  const types = base.deliveries.map((delivery) => JSON.parse(delivery.rawBody).type);
  const completed = types.indexOf("crawl.completed");
  const page = types.indexOf("crawl.page");
  const crawls = [
    ...webhookCrawls.map((crawl, index) => ({ name: `recorded crawl ${index}`, crawl })),
    {
      name: "a page after crawl.completed",
      finds: "arrived after crawl.completed",
      crawl: { ...base, deliveries: [...base.deliveries.filter((_, index) => index !== page), base.deliveries[page]] },
    },
    {
      name: "a signature made with another secret",
      finds: "header/x-firecrawl-signature invalid_signature: ",
      crawl: { ...base, deliveries: base.deliveries.map((delivery, index) => (index === page ? { ...delivery, headers: { ...delivery.headers, "x-firecrawl-signature": signed(delivery.rawBody, "another secret") } } : delivery)) },
    },
  ];
  // Arrival times differ by tool (the proxy's clock, none in a record): order findings are compared without them.
  const untimed = (text) => text.replace(/ by \d+ ms.*$/, "");
  const sorted = (texts) => texts.map(untimed).sort();

  it.each(crawls)("$name", async ({ crawl, finds }) => {
    expect(completed).toBeGreaterThan(0);
    const id = crawl.start.responseBody.id;
    const subscription = contract.webhookSubscription({ method: "POST", path: "/v2/crawl" }, crawl.start.requestBody);

    // The kit: its receiver's calls, each arriving well after the one before.
    const calls = crawl.deliveries.map((delivery, index) => ({ at: index * 1_000, method: delivery.method, headers: delivery.headers, body: delivery.rawBody, type: JSON.parse(delivery.rawBody).type }));
    const kit = judgeJob({ name: "crawl", subscription, id, calls, refused: { tooLarge: 0, overCap: 0 }, waitedMs: 1_000 }, events, { validators: contract.validators, secret: WEBHOOK_SECRET, graceMs: 250 });
    const kitTexts = kit.map((finding) => finding.text.replace(/^call #\d+ \([^)]*\): /, ""));

    // Conformance: the record.
    const conformance = deliveryDisagreements(crawl, { contract });
    const conformanceTexts = conformance.map((one) => one.text.slice(one.check.length + 2).split(" -- ")[0]);

    // The proxy: the crawl started through it, each call relayed through its webhook server.
    const receiver = await replayServer();
    const upstream = await replayServer();
    const proxy = await startContractProxy({ service: "webdata", upstream: upstream.url, webhooks: { to: receiver.url, secret: WEBHOOK_SECRET } });
    try {
      upstream.answers.set("start", { status: 200, contentType: "application/json", bodyText: JSON.stringify(crawl.start.responseBody) });
      const webhook = typeof crawl.start.requestBody.webhook === "string" ? `${proxy.webhooks}/hooks` : { ...crawl.start.requestBody.webhook, url: `${proxy.webhooks}/hooks` };
      await (await fetch(`${proxy.url}/v2/crawl`, { method: "POST", headers: { authorization: `Bearer ${runKeyOf(contract)}`, "content-type": "application/json", "x-replay": "start" }, body: JSON.stringify({ ...crawl.start.requestBody, webhook }) })).arrayBuffer();
      for (const [index, delivery] of crawl.deliveries.entries()) {
        if (index > 0) await new Promise((resolve) => setTimeout(resolve, 300));
        // Framing headers are fetch's own to set.
        const headers = Object.fromEntries(Object.entries(delivery.headers).filter(([name]) => !["content-length", "host", "connection", "transfer-encoding"].includes(name.toLowerCase())));
        await (await fetch(`${proxy.webhooks}/hooks/${index}`, { method: "POST", headers, body: delivery.rawBody })).arrayBuffer();
      }
      const errors = proxy.violations.filter((line) => line.direction === "delivery").flatMap((line) => line.errors);
      // The proxy reports problems; a finding against what the webhook asked is its own sentence, as describeFinding writes it.
      const proxyTexts = errors.map((error) => (error.keyword.startsWith("webhook-") || error.keyword === "method" ? error.message : `${error.in}${error.pointer} ${error.message}`));
      if (finds) expect(kitTexts.some((text) => text.startsWith(finds)), kitTexts.join("\n")).toBe(true);
      expect(sorted(kitTexts)).toEqual(sorted(conformanceTexts));
      expect(sorted(proxyTexts)).toEqual(sorted(kitTexts));
    } finally {
      await proxy.close();
      await upstream.close();
      await receiver.close();
    }
  });
});
