// What the HTTP probe stage costs: its time against each mock with a 1 s request deadline (the
// stalled-body probe waits for it), and the memory a run takes when the server's every answer is
// endless, next to a run against the mock. Prints a Markdown table.
//   npm run bench            (after npm run build)
import { createServer } from "node:net";
import { startMockServer } from "@api-contracts/mock-server";
import { runContractTests } from "../dist/index.js";

const RUNS = 5;
const DEADLINE_MS = 1_000;
const KEY = "fc-0123456789abcdef0123456789abcdef";

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Runs the stage and samples the resident set every 10 ms; gives seconds and the peak growth in MiB. */
async function measure(service, baseUrl) {
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const began = performance.now();
  const report = await runContractTests({ service, baseUrl, apiKey: KEY, level: "http", timeoutMs: 3_000 });
  const seconds = (performance.now() - began) / 1000;
  clearInterval(sampler);
  return { seconds, growthMiB: (peak - before) / 1024 / 1024, passed: report.passed, failed: report.failed, warnings: report.warnings ?? 0 };
}

/** Answers every connection with a chunked body that never ends. */
async function startEndlessServer() {
  const chunk = `4000\r\n${"x".repeat(0x4000)}\r\n`;
  const server = createServer((socket) => {
    socket.on("error", () => {});
    socket.once("data", () => {
      socket.write("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
      const pump = () => {
        while (!socket.destroyed && socket.write(chunk));
        if (!socket.destroyed) socket.once("drain", pump);
      };
      pump();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

console.log(`HTTP probe stage (--level http), median of ${RUNS} runs; targets with a ${DEADLINE_MS} ms request deadline\n`);
console.log("| target | probes | passed | seconds (median) | peak RSS growth, MiB (median) |");
console.log("|---|---|---|---|---|");
for (const service of ["entitlements", "webdata"]) {
  const mock = await startMockServer({ service, requestTimeout: DEADLINE_MS });
  const endless = await startEndlessServer();
  try {
    for (const [name, url] of [[`${service} mock`, mock.url], [`${service}, every answer endless`, endless.url]]) {
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(await measure(service, url));
      const last = runs.at(-1);
      console.log(`| ${name} | ${last.passed + last.failed + last.warnings} | ${last.passed} | ${median(runs.map((r) => r.seconds)).toFixed(2)} | ${median(runs.map((r) => r.growthMiB)).toFixed(1)} |`);
    }
  } finally {
    await mock.close();
    await endless.close();
  }
}
