// What injecting faults costs the contract proxy: a proxy with a rule that resets 10% of the
// requests, side by side in one run with a proxy without rules (connections kept alive, and with the
// churn the resets cause) and with its upstream alone, a bare node:http server answering the
// documented example, under both loads. Also the open sockets of each process (the proxies' to
// clients and to the upstream) before the load and once it is over. Prints a Markdown table.
//   node bench/faults.mjs   [--seconds 5] [--rounds 3] [--connections 10]
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { OpenApiValidators, loadBundle } from "@api-contracts/contract-core";
import { ENTITLEMENTS_CHECK, faultBench, loadFromArgs } from "@api-contracts/dev-tools/fault-bench";

const here = path.dirname(fileURLToPath(import.meta.url));

const dir = mkdtempSync(path.join(tmpdir(), "proxy-faults-bench-"));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
const operation = new OpenApiValidators(loadBundle("entitlements")).walkedOperations().find((op) => op.operationId === "checkAccess");
writeFileSync(path.join(dir, "body.json"), JSON.stringify(operation.responses.find((r) => r.status === "200").media[0].examples[0].value));
writeFileSync(path.join(dir, "faults.json"), JSON.stringify({ rules: [{ name: "resets", probability: 0.1, fault: "reset" }] }));

const children = new Set();
process.on("exit", () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

/** Spawns a node process (its stderr, the fault log, discarded) and resolves to its pid and the URL it prints first. */
async function serve(args) {
  const child = spawn(process.execPath, args, { cwd: path.join(here, ".."), stdio: ["ignore", "pipe", "ignore"] });
  children.add(child);
  let out = "";
  while (!out.includes("\n")) out += (await once(child.stdout, "data"))[0];
  child.stdout.resume();
  return { pid: child.pid, url: out.split("\n")[0] };
}

const upstream = await serve([path.join(here, "upstream.mjs"), "plain", path.join(dir, "body.json")]);
const proxyArgs = [path.join(here, "..", "bin", "contract-proxy.js"), "--service", "entitlements", "--upstream", upstream.url];
const table = await faultBench({
  subject: "proxy",
  targets: { plain: await serve(proxyArgs), faulty: await serve([...proxyArgs, "--faults", path.join(dir, "faults.json"), "--faults-seed", "1"]), bare: upstream },
  request: ENTITLEMENTS_CHECK,
  ...loadFromArgs({ seconds: 5, rounds: 3 }),
});
for (const child of children) {
  child.kill("SIGTERM");
  await once(child, "exit");
}
console.log(table);
