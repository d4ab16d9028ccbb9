// npm run bench: bundle size of a client and of the official SDK, and per-call overhead of the
// client over plain fetch against one local server. Usage: tsx bench/run.ts entitlements|webdata
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { createEntitlementsClient } from "@api-contracts/entitlements-client";
import { createWebdataClient } from "@api-contracts/webdata-client";

const api = process.argv[2] === "webdata" ? "webdata" : "entitlements";
const here = fileURLToPath(new URL(".", import.meta.url));

/** Minified + gzipped size of everything `source` pulls in, bundled for Node by esbuild. */
async function gzippedSize(source: string): Promise<number> {
  const result = await build({
    stdin: { contents: source, resolveDir: here, loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "node",
    write: false,
    logLevel: "silent",
  });
  return gzipSync(result.outputFiles[0]!.contents, { level: 9 }).length;
}

const sizes =
  api === "entitlements"
    ? [
        ["@api-contracts/entitlements-client", `export { createEntitlementsClient } from "@api-contracts/entitlements-client";`],
        ["autumn-js (official SDK)", `export { Autumn } from "autumn-js";`],
      ]
    : [
        ["@api-contracts/webdata-client", `export { createWebdataClient } from "@api-contracts/webdata-client";`],
        ["@mendable/firecrawl-js (official SDK)", `export { Firecrawl } from "@mendable/firecrawl-js";`],
      ];

const answer =
  api === "entitlements"
    ? JSON.stringify({ allowed: true, customer_id: "cus_1", balance: null, flag: { id: "f", feature_id: "sso" } })
    : JSON.stringify({ success: true, data: { remainingTokens: 1000, planTokens: 5000, billingPeriodStart: null, billingPeriodEnd: null } });
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(answer);
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

type Call = () => Promise<unknown>;
const auth = { authorization: "Bearer key" };
const checkBody = { customer_id: "cus_1", feature_id: "sso" };
function calls(options: { timeoutMs?: number; retry?: boolean }): Call {
  if (api === "entitlements") {
    const client = createEntitlementsClient({ apiKey: "key", baseUrl, ...options });
    return () => client.POST("/v1/balances.check", { body: checkBody });
  }
  const client = createWebdataClient({ apiKey: "key", baseUrl, ...options });
  return () => client.GET("/v2/team/token-usage");
}
const plain: Call =
  api === "entitlements"
    ? () =>
        fetch(`${baseUrl}/v1/balances.check`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(checkBody) }).then((r) =>
          r.json(),
        )
    : () => fetch(`${baseUrl}/v2/team/token-usage`, { headers: auth }).then((r) => r.json());

const contenders: Array<[string, Call]> = [
  ["plain fetch", plain],
  ["client", calls({})],
  ["client + timeout + retry", calls({ timeoutMs: 5000, retry: true })],
];

// Every caller must get the same answer, or the comparison means nothing.
for (const [name, call] of contenders) {
  const result = await call();
  const body = name === "plain fetch" ? result : (result as { data?: unknown }).data;
  if (JSON.stringify(body) !== answer) throw new Error(`${name} did not get the server's answer: ${JSON.stringify(result)}`);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

// Short interleaved blocks in rotating order, so that any drift of the machine's load hits every
// contender alike; the first rounds only warm up the engine and the kept-alive connections.
const rounds = 100;
const warmUpRounds = 10;
const perBlock = 50;
const timings = contenders.map(() => [] as number[]);
for (let round = -warmUpRounds; round < rounds; round++) {
  for (let i = 0; i < contenders.length; i++) {
    const index = (i + round + warmUpRounds) % contenders.length;
    const call = contenders[index]![1];
    for (let n = 0; n < perBlock; n++) {
      const start = performance.now();
      await call();
      if (round >= 0) timings[index]!.push(performance.now() - start);
    }
  }
}
server.close();

const medians = timings.map(median);
const base = medians[0]!;
const kB = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
console.log(`\nBundle size (esbuild --bundle --minify, platform node, gzip -9):\n`);
console.log("| package | min+gz |\n|---|---|");
for (const [name, source] of sizes) console.log(`| ${name} | ${kB(await gzippedSize(source!))} |`);
console.log(`\nPer-call time against one local node:http server, ${rounds * perBlock} calls each (median):\n`);
console.log("| caller | median per call | ratio to plain fetch |\n|---|---|---|");
contenders.forEach(([name], i) => console.log(`| ${name} | ${(medians[i]! * 1000).toFixed(0)} µs | ${(medians[i]! / base).toFixed(2)}x |`));
