#!/usr/bin/env node
// Crawl starts per second and their latency while the crawls' webhooks go to a receiver that
// answers at once, to one that never answers, and with no webhook at all, in the same run in
// alternating rounds (medians of the rounds). Each case has its own reference server and receiver,
// so that calls still pending from one case never weigh on another.
//   npm run bench -w packages/reference-server  (all benches), or
//   node bench/webhooks.mjs [--duration 5 --rounds 3 --connections 10]
import { createServer } from "node:http";
import autocannon from "autocannon";
import { benchOptions, median } from "./support.mjs";
import { defaultFixtures, startReferenceServer } from "../dist/index.js";

const { duration, rounds, connections } = benchOptions();
const headers = { authorization: `Bearer ${defaultFixtures.api_keys.webdata}`, "content-type": "application/json" };

/** A receiver on 127.0.0.1 that answers every call with 200, or (`silent`) reads it and never answers. */
async function startReceiver(silent) {
  const held = new Set();
  let calls = 0;
  const server = createServer((req, res) => {
    calls += 1;
    req.resume();
    req.on("end", () => (silent ? held.add(res) : res.writeHead(200).end()));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    get calls() {
      return calls;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

async function startCase(name, receiverKind) {
  const receiver = receiverKind === undefined ? undefined : await startReceiver(receiverKind === "silent");
  const outcomes = {};
  const server = await startReferenceServer({ service: "webdata", webhookSecret: "bench-secret", onWebhookReport: (report) => (outcomes[report.outcome] = (outcomes[report.outcome] ?? 0) + 1) });
  const body = JSON.stringify({ url: "https://example.com", ...(receiver ? { webhook: { url: receiver.url, metadata: { bench: name } } } : {}) });
  return { name, receiver, server, body, outcomes, samples: { rps: [], p50: [], p99: [], non2xx: 0 } };
}

const cases = [await startCase("no webhook"), await startCase("receiver answers at once", "answers"), await startCase("receiver never answers", "silent")];

function once(target, seconds = duration) {
  return new Promise((resolve, reject) => {
    autocannon({ url: `${target.server.url}/v2/crawl`, method: "POST", headers, body: target.body, connections, duration: seconds }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

try {
  for (const target of cases) await once(target, 1); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const target of round % 2 ? [...cases].reverse() : cases) {
      const result = await once(target);
      target.samples.rps.push(result.requests.average);
      target.samples.p50.push(result.latency.p50);
      target.samples.p99.push(result.latency.p99);
      target.samples.non2xx += result.non2xx + result.errors;
    }
  }
} finally {
  await Promise.all(cases.map(async (target) => {
    await target.server.close();
    await target.receiver?.close();
  }));
}

console.log(`\nPOST /v2/crawl, ${connections} connections, ${rounds} rounds of ${duration} s each (medians), Node ${process.version}\n`);
console.log("| crawl's webhook | crawl starts/s | p50 latency (ms) | p99 latency (ms) | non-2xx or errors | calls received | call outcomes |");
console.log("|---|---:|---:|---:|---:|---:|---|");
for (const { name, samples, receiver, outcomes } of cases) {
  const ends = Object.entries(outcomes).map(([outcome, count]) => `${outcome} ${count}`).join(", ") || "none";
  console.log(`| ${name} | ${Math.round(median(samples.rps))} | ${median(samples.p50)} | ${median(samples.p99)} | ${samples.non2xx} | ${receiver ? receiver.calls : "-"} | ${ends} |`);
}
const [none, answers, silent] = cases.map((target) => median(target.samples.rps));
console.log(`\nnever answers / answers at once: ${(silent / answers).toFixed(2)}x crawl starts per second; never answers / no webhook: ${(silent / none).toFixed(2)}x`);
