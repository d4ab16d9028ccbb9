// What injecting faults costs the contract proxy: throughput through a proxy with a rule that resets
// 10% of the requests, side by side in one run (alternating rounds, medians) with a proxy without
// rules, and with it again while the load generator opens a new connection every 10th request: the
// same connection churn the resets cause, without a fault. The upstream is a bare node:http server
// answering the documented example. Also the proxy processes' open sockets (to clients and to the
// upstream) before the load and once it is over. Prints a Markdown table.
//   node bench/faults.mjs   [--seconds 5] [--rounds 3] [--connections 10]
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { OpenApiValidators, loadBundle } from "@api-contracts/contract-core";
import { cpuSeconds, openSockets, settledSockets } from "@api-contracts/dev-tools/process-stats";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "5" }, rounds: { type: "string", default: "3" }, connections: { type: "string", default: "10" } } });
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
const dir = mkdtempSync(path.join(tmpdir(), "proxy-faults-bench-"));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
const operation = new OpenApiValidators(loadBundle("entitlements")).walkedOperations().find((op) => op.operationId === "checkAccess");
writeFileSync(path.join(dir, "body.json"), JSON.stringify(operation.responses.find((r) => r.status === "200").media[0].examples[0].value));
writeFileSync(path.join(dir, "faults.json"), JSON.stringify({ rules: [{ name: "resets", probability: 0.1, fault: "reset" }] }));

const children = new Set();
process.on("exit", () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

/** Spawns a node process (its stderr, the fault log, discarded) and resolves to the URL it prints first. */
async function serve(args) {
  const child = spawn(process.execPath, args, { cwd: path.join(here, ".."), stdio: ["ignore", "pipe", "ignore"] });
  children.add(child);
  let out = "";
  while (!out.includes("\n")) out += (await once(child.stdout, "data"))[0];
  child.stdout.resume();
  return { child, url: out.split("\n")[0] };
}

const upstream = await serve([path.join(here, "upstream.mjs"), "plain", path.join(dir, "body.json")]);
const proxyArgs = [path.join(here, "..", "bin", "contract-proxy.js"), "--service", "entitlements", "--upstream", upstream.url];
const proxies = { plain: await serve(proxyArgs), faulty: await serve([...proxyArgs, "--faults", path.join(dir, "faults.json"), "--faults-seed", "1"]) };
const sides = {
  none: { label: "no rules", proxy: "plain", load: {} },
  churn: { label: "no rules, a new connection every 10th request", proxy: "plain", load: { reconnectRate: 10 } },
  resets: { label: "10% `reset` rule", proxy: "faulty", load: {} },
};

/** Requests handled per second: answers plus connections reset (autocannon counts those as errors and reconnects). */
async function load(side, duration) {
  const proxy = proxies[side.proxy];
  const before = cpuSeconds(proxy.child.pid);
  const r = await autocannon({ url: proxy.url + request.path, method: request.method, headers: request.headers, body: request.body, connections, duration, ...side.load });
  if (r.non2xx > 0) throw new Error(`${side.label}: ${r.non2xx} non-2xx answers`);
  const handled = r.requests.total + r.errors;
  return { handled: handled / duration, answered: r.requests.total / duration, resets: r.errors / duration, cpuPerRequest: ((cpuSeconds(proxy.child.pid) - before) / handled) * 1e6 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// Before any load: the listening sockets only (the standard streams are pipes, not sockets).
const baseline = Object.fromEntries(Object.entries(proxies).map(([name, proxy]) => [name, openSockets(proxy.child.pid)]));
for (const side of Object.values(sides)) await load(side, 1);
const runs = [];
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? ["none", "churn", "resets"] : ["resets", "churn", "none"];
  const run = {};
  for (const name of order) run[name] = await load(sides[name], seconds);
  runs.push(run);
}
const after = {};
for (const [name, proxy] of Object.entries(proxies)) after[name] = await settledSockets(proxy.child.pid, baseline[name]);
for (const { child } of [...Object.values(proxies), upstream]) {
  child.kill("SIGTERM");
  await once(child, "exit");
}

const pick = (name, key) => median(runs.map((r) => r[name][key]));
const share = (name, of) => `${Math.round(median(runs.map((r) => r[name].handled / r[of].handled)) * 100)}%`;
console.log(`autocannon, ${connections} connections, POST /v1/balances.check, ${rounds} alternating rounds of ${seconds} s per side; medians. Node ${process.version}.\n`);
console.log("| proxy | requests handled/s | answers/s | resets/s | proxy CPU µs/request | vs no rules | vs the same churn | open sockets before → after |");
console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
for (const [name, side] of Object.entries(sides)) {
  const churnShare = name === "none" ? "" : share(name, "churn");
  console.log(`| ${side.label} | ${Math.round(pick(name, "handled"))} | ${Math.round(pick(name, "answered"))} | ${Math.round(pick(name, "resets"))} | ${Math.round(pick(name, "cpuPerRequest"))} | ${share(name, "none")} | ${churnShare} | ${baseline[side.proxy]} → ${after[side.proxy]} |`);
}
