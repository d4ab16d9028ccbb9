// What injecting faults costs the mock: throughput with a rule that resets 10% of the requests,
// side by side in one run (alternating rounds, medians) with the same mock without rules, and with it
// again while the load generator opens a new connection every 10th request: the same connection
// churn the resets cause, without a fault. Also the mock processes' open sockets before the load and
// once it is over. Prints a Markdown table.
//   node bench/faults.mjs   [--seconds 3] [--rounds 5] [--connections 10]
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { cpuSeconds, openSockets, settledSockets } from "@api-contracts/dev-tools/process-stats";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "3" }, rounds: { type: "string", default: "5" }, connections: { type: "string", default: "10" } } });
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const here = path.dirname(fileURLToPath(import.meta.url));

const request = {
  path: "/v1/balances.check",
  method: "POST",
  headers: { authorization: "Bearer am_sk_test_0123456789", "content-type": "application/json" },
  body: JSON.stringify({ customer_id: "cus_123", feature_id: "messages" }),
};
const faultsDir = mkdtempSync(path.join(tmpdir(), "mock-faults-bench-"));
process.on("exit", () => rmSync(faultsDir, { recursive: true, force: true }));
const faultsFile = path.join(faultsDir, "faults.json");
writeFileSync(faultsFile, JSON.stringify({ rules: [{ name: "resets", probability: 0.1, fault: "reset" }] }));

const children = new Set();
process.on("exit", () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Both mocks in a process of their own (its stderr, the fault log, discarded), with the Entitlements URL. */
async function startMock(withFaults) {
  const [webdataPort, entitlementsPort] = [await freePort(), await freePort()];
  const args = [path.join(here, "serve.mjs"), String(webdataPort), String(entitlementsPort), ...(withFaults ? [faultsFile] : [])];
  const child = spawn(process.execPath, args, { cwd: path.join(here, ".."), stdio: ["ignore", "pipe", "ignore"] });
  children.add(child);
  let out = "";
  while (out.split("\n").length < 3) out += (await once(child.stdout, "data"))[0];
  child.stdout.resume();
  return { child, url: `http://127.0.0.1:${entitlementsPort}` };
}

/** Requests handled per second: answers plus connections reset (autocannon counts those as errors and reconnects). */
async function load(side, duration) {
  const mock = mocks[side.mock];
  const before = cpuSeconds(mock.child.pid);
  const r = await autocannon({ url: mock.url + request.path, method: request.method, headers: request.headers, body: request.body, connections, duration, ...side.load });
  if (r.non2xx > 0) throw new Error(`${side.label}: ${r.non2xx} non-2xx answers`);
  const handled = r.requests.total + r.errors;
  return { handled: handled / duration, answered: r.requests.total / duration, resets: r.errors / duration, cpuPerRequest: ((cpuSeconds(mock.child.pid) - before) / handled) * 1e6 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mocks = { plain: await startMock(false), faulty: await startMock(true) };
const sides = {
  none: { label: "no rules", mock: "plain", load: {} },
  churn: { label: "no rules, a new connection every 10th request", mock: "plain", load: { reconnectRate: 10 } },
  resets: { label: "10% `reset` rule", mock: "faulty", load: {} },
};
// Before any load: the listening sockets only (the standard streams are pipes, not sockets).
const baseline = Object.fromEntries(Object.entries(mocks).map(([name, mock]) => [name, openSockets(mock.child.pid)]));
for (const side of Object.values(sides)) await load(side, 1);
const runs = [];
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? ["none", "churn", "resets"] : ["resets", "churn", "none"];
  const run = {};
  for (const name of order) run[name] = await load(sides[name], seconds);
  runs.push(run);
}
const after = {};
for (const [name, mock] of Object.entries(mocks)) after[name] = await settledSockets(mock.child.pid, baseline[name]);
for (const { child } of Object.values(mocks)) {
  child.kill("SIGTERM");
  await once(child, "exit");
}

const pick = (name, key) => median(runs.map((r) => r[name][key]));
const share = (name, of) => `${Math.round(median(runs.map((r) => r[name].handled / r[of].handled)) * 100)}%`;
console.log(`autocannon, ${connections} connections, POST /v1/balances.check, ${rounds} alternating rounds of ${seconds} s per side; medians. Node ${process.version}.\n`);
console.log("| mock | requests handled/s | answers/s | resets/s | mock CPU µs/request | vs no rules | vs the same churn | open sockets before → after |");
console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
for (const [name, side] of Object.entries(sides)) {
  const churnShare = name === "none" ? "" : share(name, "churn");
  console.log(`| ${side.label} | ${Math.round(pick(name, "handled"))} | ${Math.round(pick(name, "answered"))} | ${Math.round(pick(name, "resets"))} | ${Math.round(pick(name, "cpuPerRequest"))} | ${share(name, "none")} | ${churnShare} | ${baseline[side.mock]} → ${after[side.mock]} |`);
}
