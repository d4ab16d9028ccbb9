// The driver behind each client's `npm run bench`: bundle size of the client and of the official
// SDK, and per-call overhead of the client over plain fetch against one local server.
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { startServer } from "./testing/servers.js";

type Call = () => Promise<unknown>;

export interface ClientBench {
  /** Entries of the size table: a label and an ES module whose exports are bundled, e.g. `export { Autumn } from "autumn-js";`. */
  sizes: Array<[label: string, source: string]>;
  /** Folder the size sources' imports resolve from (the client's bench folder). */
  resolveDir: string;
  /** JSON text the local server sends for every call; each caller must read exactly this. */
  answer: string;
  /** The same call made with plain fetch; resolves to the parsed body. */
  plain: (baseUrl: string) => Call;
  /** The same call made with the client built with `options`; resolves to openapi-fetch's `{ data, error, response }`. */
  client: (baseUrl: string, options: { timeoutMs?: number; retry?: boolean }) => Call;
}

/** Minified + gzipped size of everything `source` pulls in, bundled for Node by esbuild. */
async function gzippedSize(source: string, resolveDir: string): Promise<number> {
  const result = await build({
    stdin: { contents: source, resolveDir, loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "node",
    write: false,
    logLevel: "silent",
  });
  return gzipSync(result.outputFiles[0]!.contents, { level: 9 }).length;
}

/** The middle value (the upper of the two middle ones for an even count). */
export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/** Runs the bench and prints its two Markdown tables. */
export async function runClientBench(bench: ClientBench): Promise<void> {
  const server = await startServer((_request, res) => void res.writeHead(200, { "content-type": "application/json" }).end(bench.answer));

  const contenders: Array<[string, Call]> = [
    ["plain fetch", bench.plain(server.url)],
    ["client", bench.client(server.url, {})],
    ["client + timeout + retry", bench.client(server.url, { timeoutMs: 5000, retry: true })],
  ];

  // Every caller must get the same answer, or the comparison means nothing.
  for (const [name, call] of contenders) {
    const result = await call();
    const body = name === "plain fetch" ? result : (result as { data?: unknown }).data;
    if (JSON.stringify(body) !== bench.answer) throw new Error(`${name} did not get the server's answer: ${JSON.stringify(result)}`);
  }

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
  await server.close();

  const medians = timings.map(median);
  const base = medians[0]!;
  const kB = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
  console.log(`\nBundle size (esbuild --bundle --minify, platform node, gzip -9):\n`);
  console.log("| package | min+gz |\n|---|---|");
  for (const [label, source] of bench.sizes) console.log(`| ${label} | ${kB(await gzippedSize(source, bench.resolveDir))} |`);
  console.log(`\nPer-call time against one local node:http server, ${rounds * perBlock} calls each (median):\n`);
  console.log("| caller | median per call | ratio to plain fetch |\n|---|---|---|");
  contenders.forEach(([name], i) => console.log(`| ${name} | ${(medians[i]! * 1000).toFixed(0)} µs | ${(medians[i]! / base).toFixed(2)}x |`));
}
