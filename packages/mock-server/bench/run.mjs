// Throughput and latency of the mock against a bare node:http server serving the same example body,
// plus the time from process start to the first answered request. Prints a Markdown table.
//   npm run bench -w packages/mock-server   [--seconds 3] [--rounds 3] [--connections 10]
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "3" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "10" },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const here = path.dirname(fileURLToPath(import.meta.url));

const targets = [
  {
    name: "POST /v1/balances.check",
    service: "entitlements",
    path: "/v1/balances.check",
    headers: { authorization: "Bearer am_sk_test_0123456789", "content-type": "application/json" },
    body: JSON.stringify({ customer_id: "cus_123", feature_id: "messages" }),
  },
  {
    name: "POST /v2/crawl",
    service: "webdata",
    path: "/v2/crawl",
    headers: { authorization: "Bearer fc-0123456789abcdef0123456789abcdef", "content-type": "application/json" },
    body: JSON.stringify({ url: "https://example.com", limit: 10 }),
  },
];

function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

const children = new Set();
// A failed run must not leave servers behind.
process.on("exit", () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

function startProcess(args) {
  const child = spawn(process.execPath, args, { cwd: path.join(here, ".."), stdio: ["ignore", "pipe", "inherit"] });
  return child;
}

async function firstAnswer(url, target, startedAt) {
  for (;;) {
    try {
      const res = await fetch(url + target.path, { method: "POST", headers: target.headers, body: target.body });
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - startedAt;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function stop(child) {
  if (child.exitCode !== null) return;
  child.kill("SIGTERM");
  await once(child, "exit");
}

/** Time from spawning the mock bin to the first 200 of each API. */
async function startupTimes() {
  const [webdataPort, entitlementsPort] = [await freePort(), await freePort()];
  const startedAt = performance.now();
  const child = startProcess(["bin/api-mock.js", "--webdata-port", String(webdataPort), "--entitlements-port", String(entitlementsPort)]);
  child.stdout.resume();
  children.add(child);
  const times = await Promise.all(
    targets.map((t) => firstAnswer(`http://127.0.0.1:${t.service === "webdata" ? webdataPort : entitlementsPort}`, t, startedAt)),
  );
  await stop(child);
  return times;
}

function load(url, target) {
  return autocannon({
    url: url + target.path,
    method: "POST",
    headers: target.headers,
    body: target.body,
    connections,
    duration: seconds,
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(target) {
  const [webdataPort, entitlementsPort] = [await freePort(), await freePort()];
  const mockPort = target.service === "webdata" ? webdataPort : entitlementsPort;
  const mock = startProcess(["bin/api-mock.js", "--webdata-port", String(webdataPort), "--entitlements-port", String(entitlementsPort)]);
  mock.stdout.resume();
  const mockUrl = `http://127.0.0.1:${mockPort}`;
  children.add(mock);
  await firstAnswer(mockUrl, target, performance.now());
  const sample = await fetch(mockUrl + target.path, { method: "POST", headers: target.headers, body: target.body });
  const exampleBody = await sample.text();
  if (sample.status !== 200) throw new Error(`mock answered ${sample.status}: ${exampleBody}`);
  const dir = mkdtempSync(path.join(tmpdir(), "mock-bench-"));
  writeFileSync(path.join(dir, "body.json"), exampleBody);
  const plainPort = await freePort();
  const plain = startProcess([path.join(here, "plain-server.mjs"), String(plainPort), path.join(dir, "body.json")]);
  children.add(plain);
  await once(plain.stdout, "data");
  const plainUrl = `http://127.0.0.1:${plainPort}`;

  const results = { mock: [], plain: [] };
  // Warm both up, then alternate so that both see the same machine load.
  await Promise.all([autocannon({ url: mockUrl + target.path, method: "POST", headers: target.headers, body: target.body, duration: 1 })]);
  await autocannon({ url: plainUrl + target.path, method: "POST", headers: target.headers, body: target.body, duration: 1 });
  for (let round = 0; round < rounds; round++) {
    for (const [name, url] of [
      ["mock", mockUrl],
      ["plain", plainUrl],
    ]) {
      const r = await load(url, target);
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name} had ${r.non2xx} non-2xx answers and ${r.errors} errors`);
      results[name].push({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 });
    }
  }
  await Promise.all([stop(mock), stop(plain)]);
  const summary = (runs) => ({
    rps: median(runs.map((x) => x.rps)),
    p50: median(runs.map((x) => x.p50)),
    p99: median(runs.map((x) => x.p99)),
  });
  return { mock: summary(results.mock), plain: summary(results.plain) };
}

const startups = [];
for (let i = 0; i < 5; i++) startups.push(await startupTimes());

const rows = [];
for (const target of targets) {
  const { mock, plain } = await measure(target);
  rows.push(`| ${target.name} | mock | ${Math.round(mock.rps)} | ${mock.p50} | ${mock.p99} | ${Math.round((mock.rps / plain.rps) * 100)}% |`);
  rows.push(`| ${target.name} | plain node:http | ${Math.round(plain.rps)} | ${plain.p50} | ${plain.p99} | 100% |`);
}

console.log(`autocannon, ${connections} connections, ${rounds} alternating rounds of ${seconds} s; medians. Node ${process.version}.\n`);
console.log("| operation | server | req/s | p50 ms | p99 ms | throughput vs plain |");
console.log("|---|---|---:|---:|---:|---:|");
for (const row of rows) console.log(row);
console.log("\n| API | start to first answer (median of 5) |");
console.log("|---|---:|");
targets.forEach((t, i) => console.log(`| ${t.service} (${t.name}) | ${Math.round(median(startups.map((s) => s[i])))} ms |`));
