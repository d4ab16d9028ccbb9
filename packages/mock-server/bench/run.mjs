// Throughput and latency of the mock against a bare node:http server serving the same example body,
// plus the time from process start to the first answered request. Prints Markdown tables.
// Two scenarios per operation: one request body repeated, and a rotating set of distinct valid
// bodies, so that nothing the mock could remember from an earlier request helps it.
// The load generator shares the machine with the servers, so req/s is partly its limit too; the
// servers' own CPU time per request shows the cost of each answer without that cap.
//   npm run bench -w packages/mock-server   [--seconds 3] [--rounds 5] [--connections 10] [--bodies 10000]
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { cpuSeconds } from "@api-contracts/dev-tools/process-stats";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "3" },
    rounds: { type: "string", default: "5" },
    connections: { type: "string", default: "10" },
    bodies: { type: "string", default: "10000" },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const distinct = Number(values.bodies);
const here = path.dirname(fileURLToPath(import.meta.url));

const targets = [
  {
    name: "POST /v1/balances.check",
    service: "entitlements",
    path: "/v1/balances.check",
    headers: { authorization: "Bearer am_sk_test_0123456789", "content-type": "application/json" },
    body: JSON.stringify({ customer_id: "cus_123", feature_id: "messages" }),
    vary: (i) => ({
      customer_id: `cus_${i.toString(36)}`,
      feature_id: ["messages", "api_calls", "seats", "credits"][i % 4],
      required_balance: (i % 250) + 0.5,
      ...(i % 3 === 0 ? { entity_id: `seat_${i % 97}` } : {}),
      ...(i % 5 === 0 ? { send_event: true, properties: { request: i } } : {}),
    }),
  },
  {
    name: "POST /v2/crawl",
    service: "webdata",
    path: "/v2/crawl",
    headers: { authorization: "Bearer fc-0123456789abcdef0123456789abcdef", "content-type": "application/json" },
    body: JSON.stringify({ url: "https://example.com", limit: 10 }),
    vary: (i) => ({
      url: `https://site-${i % 512}.example.com/docs/${i}`,
      limit: 1 + (i % 1000),
      ...(i % 2 === 0 ? { includePaths: [`^/docs/${i % 37}/.*`], maxDiscoveryDepth: i % 7 } : {}),
      ...(i % 3 === 0 ? { scrapeOptions: { formats: ["markdown"], onlyMainContent: i % 2 === 0 } } : {}),
    }),
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

/** Time from spawning the mock process to the first 200 of each API. */
async function startupTimes() {
  const [webdataPort, entitlementsPort] = [await freePort(), await freePort()];
  const startedAt = performance.now();
  const child = startProcess([path.join(here, "serve.mjs"), String(webdataPort), String(entitlementsPort)]);
  child.stdout.resume();
  children.add(child);
  const times = await Promise.all(
    targets.map((t) => firstAnswer(`http://127.0.0.1:${t.service === "webdata" ? webdataPort : entitlementsPort}`, t, startedAt)),
  );
  await stop(child);
  return times;
}

const scenarios = ["repeated", "varied"];

function load(url, target, scenario, duration = seconds) {
  const options = { url: url + target.path, method: "POST", headers: target.headers, connections, duration };
  if (scenario === "repeated") return autocannon({ ...options, body: target.body });
  const bodies = target.bodies;
  let next = 0;
  // One counter shared by all connections: consecutive requests never carry the same body.
  const setupRequest = (request) => ({ ...request, body: bodies[next++ % bodies.length] });
  return autocannon({ ...options, requests: [{ setupRequest }] });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(target) {
  const [webdataPort, entitlementsPort] = [await freePort(), await freePort()];
  const mockPort = target.service === "webdata" ? webdataPort : entitlementsPort;
  const mock = startProcess([path.join(here, "serve.mjs"), String(webdataPort), String(entitlementsPort)]);
  mock.stdout.resume();
  const mockUrl = `http://127.0.0.1:${mockPort}`;
  children.add(mock);
  await firstAnswer(mockUrl, target, performance.now());
  const sample = await fetch(mockUrl + target.path, { method: "POST", headers: target.headers, body: target.body });
  const exampleBody = await sample.text();
  if (sample.status !== 200) throw new Error(`mock answered ${sample.status}: ${exampleBody}`);
  // The plain server's fixed body is a fair stand-in only if the varied bodies get the same answer.
  const variedSample = await fetch(mockUrl + target.path, { method: "POST", headers: target.headers, body: target.bodies[1] });
  if ((await variedSample.text()) !== exampleBody) throw new Error(`${target.name}: a varied body got a different answer`);
  const dir = mkdtempSync(path.join(tmpdir(), "mock-bench-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, "body.json"), exampleBody);
  const plainPort = await freePort();
  const plain = startProcess([path.join(here, "plain-server.mjs"), String(plainPort), path.join(dir, "body.json")]);
  children.add(plain);
  await once(plain.stdout, "data");
  const plainUrl = `http://127.0.0.1:${plainPort}`;

  const servers = { mock: { url: mockUrl, pid: mock.pid }, plain: { url: plainUrl, pid: plain.pid } };
  const runs = Object.fromEntries(scenarios.map((scenario) => [scenario, []]));
  for (const { url } of Object.values(servers)) for (const scenario of scenarios) await load(url, target, scenario, 1);
  for (let round = 0; round < rounds; round++) {
    for (const scenario of scenarios) {
      // Each round measures both servers back to back, in alternating order, so that a change in
      // machine load between rounds affects both sides of that round's ratio alike.
      const order = round % 2 === 0 ? ["mock", "plain"] : ["plain", "mock"];
      const run = {};
      for (const name of order) {
        const cpuBefore = cpuSeconds(servers[name].pid);
        const r = await load(servers[name].url, target, scenario);
        const cpu = cpuSeconds(servers[name].pid) - cpuBefore;
        if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name} ${scenario} had ${r.non2xx} non-2xx answers and ${r.errors} errors`);
        run[name] = { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpuPerRequest: (cpu / r.requests.total) * 1e6 };
      }
      runs[scenario].push(run);
    }
  }
  await Promise.all([stop(mock), stop(plain)]);
  const summary = (list, name) => ({
    rps: median(list.map((x) => x[name].rps)),
    p50: median(list.map((x) => x[name].p50)),
    p99: median(list.map((x) => x[name].p99)),
    cpuPerRequest: median(list.map((x) => x[name].cpuPerRequest)),
  });
  return Object.fromEntries(
    scenarios.map((scenario) => {
      const list = runs[scenario];
      const ratio = median(list.map((x) => x.mock.rps / x.plain.rps));
      return [scenario, { mock: summary(list, "mock"), plain: summary(list, "plain"), ratio }];
    }),
  );
}

for (const target of targets) {
  target.bodies = Array.from({ length: distinct }, (_, i) => JSON.stringify(target.vary(i)));
  if (new Set(target.bodies).size !== distinct) throw new Error(`${target.name}: the varied bodies are not all distinct`);
}

const startups = [];
for (let i = 0; i < 5; i++) startups.push(await startupTimes());

const rows = [];
for (const target of targets) {
  const measured = await measure(target);
  for (const scenario of scenarios) {
    const { mock, plain, ratio } = measured[scenario];
    const label = scenario === "varied" ? `varied (${distinct} distinct bodies)` : "repeated (one body)";
    const row = (name, x, share) =>
      `| ${target.name} | ${label} | ${name} | ${Math.round(x.rps)} | ${x.p50} | ${x.p99} | ${Math.round(x.cpuPerRequest)} | ${share} |`;
    rows.push(row("mock", mock, `${Math.round(ratio * 100)}%`));
    rows.push(row("plain node:http", plain, "100%"));
  }
}

console.log(`autocannon, ${connections} connections, ${rounds} rounds of ${seconds} s per server and scenario; medians. Node ${process.version}.\n`);
console.log("| operation | request bodies | server | req/s | p50 ms | p99 ms | server CPU µs/request | throughput vs plain |");
console.log("|---|---|---|---:|---:|---:|---:|---:|");
for (const row of rows) console.log(row);
console.log("\n| API | start to first answer (median of 5) |");
console.log("|---|---:|");
targets.forEach((t, i) => console.log(`| ${t.service} (${t.name}) | ${Math.round(median(startups.map((s) => s[i])))} ms |`));
