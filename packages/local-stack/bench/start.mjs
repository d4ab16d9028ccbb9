// Time from spawning `api-mock --only webdata` to its first answered request, beside the same
// figure for Prism's own CLI (`prism mock`) serving the same bundle: the two are started
// alternately, each the same number of times, and each is polled with a GET every 10 ms until it
// answers 200. One start of each comes first and is not counted: it fills the system's file cache
// for both, and the mock's answer cache for this bundle (what any second start of the mock finds).
// Builds nothing: it runs `bin/api-mock.js` over the built `dist/`.
//   npm run bench -w packages/local-stack   [--rounds 5] [--json]
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { median } from "@api-contracts/dev-tools/bench";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "5" }, json: { type: "boolean", default: false } } });
const rounds = Number(values.rounds);
const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const bundle = require.resolve("@api-contracts/spec/webdata.json");
const prismBin = path.join(path.dirname(require.resolve("@stoplight/prism-cli/package.json")), "dist", "index.js");
const apiMockBin = path.join(here, "..", "bin", "api-mock.js");
/** The figure the issue set: the mock starts in at most this share of Prism's CLI's time. */
const TARGET_RATIO = 0.15;

const request = { path: "/v2/team/token-usage", headers: { authorization: "Bearer fc-0123456789abcdef0123456789abcdef" } };

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const contenders = {
  "api-mock --only webdata": (port) => [apiMockBin, "--only", "webdata", "--webdata-port", String(port)],
  "prism mock (Prism's CLI)": (port) => [prismBin, "mock", bundle, "-p", String(port), "-h", "127.0.0.1"],
};

/** Spawns one contender and resolves with the milliseconds until its first 200. */
async function startToFirstAnswer(name) {
  const port = await freePort();
  const startedAt = performance.now();
  const child = spawn(process.execPath, contenders[name](port), { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`${name} exited (${code}) before answering:\n${stderr}`);
  });
  exited.catch(() => undefined);
  try {
    const deadline = startedAt + 30_000;
    for (;;) {
      if (performance.now() > deadline) throw new Error(`${name} did not answer within 30 s:\n${stderr}`);
      const answered = await Promise.race([
        fetch(`http://127.0.0.1:${port}${request.path}`, { headers: request.headers }).then(
          async (res) => {
            await res.arrayBuffer();
            if (res.status !== 200) throw new Error(`${name} answered ${res.status}`);
            return true;
          },
          () => false,
        ),
        exited,
      ]);
      if (answered) return performance.now() - startedAt;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  }
}

const times = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
for (const name of Object.keys(contenders)) await startToFirstAnswer(name);
// Alternating, so that a slower stretch of the machine falls on both.
for (let i = 0; i < rounds; i++) {
  for (const name of Object.keys(contenders)) times[name].push(await startToFirstAnswer(name));
}
const [mockName, prismName] = Object.keys(contenders);
const mock = median(times[mockName]);
const prism = median(times[prismName]);
const ratio = mock / prism;

if (values.json) {
  console.log(JSON.stringify({ node: process.version, rounds, times, medians: { mock, prism }, ratio }));
} else {
  console.log(`\nStart to first answer (GET ${request.path}, polled every 10 ms), median of ${rounds}, Node ${process.version}\n`);
  console.log("| server | median | runs | against Prism's CLI |");
  console.log("| --- | --- | --- | --- |");
  const runs = (name) => times[name].map((t) => Math.round(t)).join(", ");
  console.log(`| ${mockName} | ${Math.round(mock)} ms | ${runs(mockName)} | ${ratio.toFixed(2)}x (target <= ${TARGET_RATIO}x) |`);
  console.log(`| ${prismName} | ${Math.round(prism)} ms | ${runs(prismName)} | anchor |`);
}
