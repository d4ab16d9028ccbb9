// What injecting faults costs the mock: a rule that resets 10% of the requests, side by side in one
// run with the mock without rules (connections kept alive, and with the churn the resets cause) and a
// bare node:http server giving the same answer under both loads. Also the open sockets of each
// process before the load and once it is over. Prints a Markdown table.
//   node bench/faults.mjs   [--seconds 3] [--rounds 5] [--connections 10]
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { OpenApiValidators, loadBundle } from "@api-contracts/contract-core";
import { ENTITLEMENTS_CHECK, faultBench, loadFromArgs } from "@api-contracts/dev-tools/fault-bench";

const here = path.dirname(fileURLToPath(import.meta.url));

const dir = mkdtempSync(path.join(tmpdir(), "mock-faults-bench-"));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
const faultsFile = path.join(dir, "faults.json");
writeFileSync(faultsFile, JSON.stringify({ rules: [{ name: "resets", probability: 0.1, fault: "reset" }] }));
// The bare server answers what the mock answers: the check's documented example.
const check = new OpenApiValidators(loadBundle("entitlements")).walkedOperations().find((op) => op.operationId === "checkAccess");
writeFileSync(path.join(dir, "body.json"), JSON.stringify(check.responses.find((r) => r.status === "200").media[0].examples[0].value));

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

/** Spawns a node process (its stderr, the fault log, discarded) and resolves to it and the lines it printed on start. */
async function spawnServer(args, lines) {
  const child = spawn(process.execPath, args, { cwd: path.join(here, ".."), stdio: ["ignore", "pipe", "ignore"] });
  children.add(child);
  let out = "";
  while (out.split("\n").length <= lines) out += (await once(child.stdout, "data"))[0];
  child.stdout.resume();
  return { child, printed: out.split("\n") };
}

/** Both mocks in one process, as `api-mock` serves them; the Entitlements one is measured. */
async function startMock(withFaults) {
  const [webdataPort, entitlementsPort] = [await freePort(), await freePort()];
  const { child } = await spawnServer([path.join(here, "serve.mjs"), String(webdataPort), String(entitlementsPort), ...(withFaults ? [faultsFile] : [])], 2);
  return { child, url: `http://127.0.0.1:${entitlementsPort}` };
}

const plain = await startMock(false);
const faulty = await startMock(true);
const bare = await spawnServer([path.join(here, "plain-server.mjs"), "0", path.join(dir, "body.json")], 1);
const target = ({ child, url }) => ({ pid: child.pid, url });
const table = await faultBench({
  subject: "mock",
  targets: { plain: target(plain), faulty: target(faulty), bare: { pid: bare.child.pid, url: bare.printed[0] } },
  request: ENTITLEMENTS_CHECK,
  ...loadFromArgs({ seconds: 3, rounds: 5 }),
});
for (const child of children) {
  child.kill("SIGTERM");
  await once(child, "exit");
}
console.log(table);
