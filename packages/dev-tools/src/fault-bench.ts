// What a 10% `reset` rule costs a server, side by side in one run: the server with the rule, the
// same server without rules (connections kept alive, then with a new connection every 10th request,
// the churn the resets cause), and a bare node:http server under the same two loads, which shows what
// that churn costs any node server. Alternating rounds, medians; a Markdown table.
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { median } from "./bench.js";
import { cpuSeconds, openSockets, settledSockets } from "./process-stats.js";

/** A server in a process of its own: the URL the load goes to, the process its CPU and sockets are read from. */
export interface BenchTarget {
  url: string;
  pid: number;
}

export interface FaultBenchOptions {
  /** What the first column calls the server under test ("mock", "proxy"). */
  subject: string;
  /** The server without rules, the same server with a rule that resets 10% of the requests, a bare node:http server. */
  targets: { plain: BenchTarget; faulty: BenchTarget; bare: BenchTarget };
  request: { path: string; method: string; headers: Record<string, string>; body: string };
  connections: number;
  seconds: number;
  rounds: number;
}

/** The request both fault benches send: the Entitlements check, the call a client makes most. */
export const ENTITLEMENTS_CHECK: FaultBenchOptions["request"] = {
  path: "/v1/balances.check",
  method: "POST",
  headers: { authorization: "Bearer am_sk_test_0123456789", "content-type": "application/json" },
  body: JSON.stringify({ customer_id: "cus_123", feature_id: "messages" }),
};

/** The load a bench's command line asks for: `[--seconds N] [--rounds N] [--connections 10]`, else `defaults`. */
export function loadFromArgs(defaults: { seconds: number; rounds: number }): Pick<FaultBenchOptions, "seconds" | "rounds" | "connections"> {
  const { values } = parseArgs({ options: { seconds: { type: "string" }, rounds: { type: "string" }, connections: { type: "string" } } });
  return { seconds: Number(values.seconds ?? defaults.seconds), rounds: Number(values.rounds ?? defaults.rounds), connections: Number(values.connections ?? 10) };
}

type TargetName = keyof FaultBenchOptions["targets"];
interface Side {
  label: string;
  target: TargetName;
  reconnectRate?: number;
  /** The side this one is a share of: the same server, kept-alive connections, no fault. */
  of: SideName;
  /** The side with the same connection churn and no fault, for the sides that have one. */
  churn?: SideName;
}
type SideName = "none" | "churn" | "resets" | "bare" | "bareChurn";

interface Measured {
  handled: number;
  resets: number;
  cpuPerRequest: number;
}

/** Runs the bench and resolves to its table, a heading line first. */
export async function faultBench(options: FaultBenchOptions): Promise<string> {
  const { subject, targets, request, connections, seconds, rounds } = options;
  const sides: Record<SideName, Side> = {
    none: { label: `${subject}, no rules`, target: "plain", of: "none" },
    churn: { label: `${subject}, no rules, a new connection every 10th request`, target: "plain", reconnectRate: 10, of: "none", churn: "churn" },
    resets: { label: `${subject}, 10% \`reset\` rule`, target: "faulty", of: "none", churn: "churn" },
    bare: { label: "bare node:http server", target: "bare", of: "bare" },
    bareChurn: { label: "bare node:http server, a new connection every 10th request", target: "bare", reconnectRate: 10, of: "bare", churn: "bareChurn" },
  };
  const load = async (side: Side, duration: number): Promise<Measured> => {
    const target = targets[side.target];
    const before = cpuSeconds(target.pid);
    const result = await autocannon({ url: target.url + request.path, method: request.method, headers: request.headers, body: request.body, connections, duration, ...(side.reconnectRate ? { reconnectRate: side.reconnectRate } : {}) });
    if (result.non2xx > 0) throw new Error(`${side.label}: ${result.non2xx} non-2xx answers`);
    // Requests sent, less those still in flight at the end: each was answered or reset. (autocannon's
    // answer count leaves out the answer after which it reconnects, so churn would look slower.)
    const handled = Math.max(0, result.requests.sent - connections);
    return { handled: handled / duration, resets: result.errors / duration, cpuPerRequest: ((cpuSeconds(target.pid) - before) / handled) * 1e6 };
  };

  // Before any load: the listening sockets only (the standard streams are pipes, not sockets).
  const names = Object.keys(targets) as TargetName[];
  const baseline = Object.fromEntries(names.map((name) => [name, openSockets(targets[name].pid)])) as Record<TargetName, number>;
  const order = Object.keys(sides) as SideName[];
  for (const name of order) await load(sides[name], 1);
  const runs: Array<Record<SideName, Measured>> = [];
  for (let round = 0; round < rounds; round++) {
    const run = {} as Record<SideName, Measured>;
    for (const name of round % 2 === 0 ? order : [...order].reverse()) run[name] = await load(sides[name], seconds);
    runs.push(run);
  }
  const after = {} as Record<TargetName, number>;
  for (const name of names) after[name] = await settledSockets(targets[name].pid, baseline[name]);

  const pick = (name: SideName, key: keyof Measured) => Math.round(median(runs.map((run) => run[name][key])));
  const share = (name: SideName, of: SideName) => `${Math.round(median(runs.map((run) => run[name].handled / run[of].handled)) * 100)}%`;
  const lines = [
    `autocannon, ${connections} connections, ${request.method} ${request.path}, ${rounds} alternating rounds of ${seconds} s per side; medians. Node ${process.version}.`,
    "",
    "| server and load | requests handled/s | answers/s | resets/s | server CPU µs/request | vs kept-alive, no rules | vs the same churn | open sockets before → after |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const name of order) {
    const side = sides[name];
    const churn = side.churn && side.churn !== name ? share(name, side.churn) : "";
    lines.push(
      `| ${side.label} | ${pick(name, "handled")} | ${pick(name, "handled") - pick(name, "resets")} | ${pick(name, "resets")} | ${pick(name, "cpuPerRequest")} | ${share(name, side.of)} | ${churn} | ${baseline[side.target]} → ${after[side.target]} |`,
    );
  }
  return lines.join("\n");
}
