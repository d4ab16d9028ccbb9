// Throughput straight to an upstream, through a pass-through that judges nothing (bench/passthrough.mjs:
// the floor under any proxy built from the same parts) and through the contract proxy, side by side in
// one run, with the same connections and request: POST /v1/balances.check. Four upstreams: a bare
// node:http server answering the documented example (the proxy's own cost shows fully), the
// Entitlements mock, the reference implementation (an upstream that does real work per request), and
// a bare server that answers a millisecond later (a service waiting on its database). Rounds alternate
// the order, so that a change in machine load affects every side of a round alike. Prints a Markdown
// table of medians.
//   npm run bench -w packages/contract-proxy   [--seconds 5] [--rounds 3] [--connections 10]
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { OpenApiValidators, loadBundle } from "@api-contracts/contract-core";
import { defaultFixtures } from "@api-contracts/reference-server";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "5" }, rounds: { type: "string", default: "3" }, connections: { type: "string", default: "10" } } });
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const here = path.dirname(fileURLToPath(import.meta.url));

const mockRequest = {
  method: "POST",
  path: "/v1/balances.check",
  headers: { authorization: "Bearer am_sk_test_0123456789", "content-type": "application/json" },
  body: JSON.stringify({ customer_id: "cus_123", feature_id: "messages" }),
};
// The reference implementation knows only its own customers and key.
const { entitlements: world, api_keys: keys } = defaultFixtures;
const referenceRequest = {
  ...mockRequest,
  headers: { ...mockRequest.headers, authorization: `Bearer ${keys.entitlements}` },
  body: JSON.stringify({ customer_id: world.customer_id, feature_id: world.metered_feature_id }),
};
const upstreams = [
  { kind: "plain", label: "bare node:http", request: mockRequest },
  { kind: "mock", label: "Entitlements mock", request: mockRequest },
  { kind: "reference", label: "Entitlements reference server", request: referenceRequest },
  { kind: "slow", label: "node:http answering after 1 ms", request: mockRequest },
];
const operation = new OpenApiValidators(loadBundle("entitlements")).walkedOperations().find((op) => op.operationId === "checkAccess");
const example = operation.responses.find((r) => r.status === "200").media[0].examples[0].value;
const bodyDir = mkdtempSync(path.join(tmpdir(), "proxy-bench-"));
process.on("exit", () => rmSync(bodyDir, { recursive: true, force: true }));
const bodyFile = path.join(bodyDir, "body.json");
writeFileSync(bodyFile, JSON.stringify(example));

const children = new Set();
process.on("exit", () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

/** Spawns a node process and resolves to the URL it prints first. */
async function serve(args) {
  const child = spawn(process.execPath, args, { cwd: path.join(here, ".."), stdio: ["ignore", "pipe", "inherit"] });
  children.add(child);
  let out = "";
  while (!out.includes("\n")) out += (await once(child.stdout, "data"))[0];
  child.stdout.resume();
  return { child, url: out.split("\n")[0] };
}

async function load(url, duration, request) {
  const result = await autocannon({ url: url + request.path, method: request.method, headers: request.headers, body: request.body, connections, duration });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

async function violationsSeen(url, request) {
  const res = await fetch(url + request.path, { method: request.method, headers: request.headers, body: request.body });
  await res.arrayBuffer();
  return res.headers.get("x-contract-violations");
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const { kind, label, request } of upstreams) {
  const upstream = await serve([path.join(here, "upstream.mjs"), kind, bodyFile]);
  const passthrough = await serve([path.join(here, "passthrough.mjs"), "--upstream", upstream.url]);
  const proxy = await serve([path.join(here, "..", "bin", "contract-proxy.js"), "--service", "entitlements", "--upstream", upstream.url]);
  if ((await violationsSeen(proxy.url, request)) !== "0") throw new Error(`the ${kind} upstream's answer is not clean through the proxy`);
  const sides = { direct: upstream.url, passthrough: passthrough.url, proxy: proxy.url };
  for (const url of Object.values(sides)) await load(url, 1, request);
  const runs = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ["direct", "passthrough", "proxy"] : ["proxy", "passthrough", "direct"];
    const run = {};
    for (const side of order) run[side] = await load(sides[side], seconds, request);
    runs.push(run);
  }
  for (const child of [proxy.child, passthrough.child, upstream.child]) {
    child.kill("SIGTERM");
    await once(child, "exit");
  }
  const pick = (side, key) => median(runs.map((r) => r[side][key]));
  const row = (side, name) => {
    const ratio = median(runs.map((r) => r[side].rps / r.direct.rps));
    rows.push(`| ${label} | ${name} | ${Math.round(pick(side, "rps"))} | ${pick(side, "p50")} | ${pick(side, "p99")} | ${Math.round(ratio * 100)}% |`);
  };
  row("direct", "direct");
  row("passthrough", "through a pass-through that judges nothing");
  row("proxy", "through contract-proxy");
}

console.log(`autocannon, ${connections} connections, ${rounds} alternating rounds of ${seconds} s per side; medians. Node ${process.version}.\n`);
console.log("| upstream | path | req/s | p50 ms | p99 ms | throughput vs direct |");
console.log("|---|---|---:|---:|---:|---:|");
for (const row of rows) console.log(row);
