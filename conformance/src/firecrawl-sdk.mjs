// The official SDK (@mendable/firecrawl-js) driven against the server through `contract-proxy`,
// which judges each of its requests and the server's answers against the contract.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { freePort, probePort, startDaemon, stopGroup, waitUntil } from "./processes.mjs";

const require = createRequire(import.meta.url);

/** The proxy's accepted differences from the contract for this release, when there are any. */
export const PROXY_KNOWN_DIFFERENCES = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "known-differences", "firecrawl-proxy.json");

/** What a `contract-proxy --report` file says: violations, known ones and stale entries. */
export function summariseProxyReport(text) {
  const lines = text.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line));
  const violations = lines.filter((line) => Array.isArray(line.errors) && line.judged !== false && !line.known);
  return {
    violations,
    known: lines.filter((line) => Array.isArray(line.known)).length,
    notJudged: lines.filter((line) => line.judged === false).length,
    stale: lines.filter((line) => line.stale).map((line) => line.stale),
  };
}

/** The contract-proxy command of the installed package. */
function proxyBin() {
  const file = require.resolve("@api-contracts/contract-proxy/package.json");
  return path.join(path.dirname(file), JSON.parse(readFileSync(file, "utf8")).bin["contract-proxy"]);
}

/**
 * Starts `contract-proxy --service webdata --strict` in front of `baseUrl`, drives the SDK through
 * it (a crawl with a few options, its cancel, the token usage) and stops it. Resolves with the
 * report's summary and what the SDK returned; an SDK call that throws is part of the result.
 */
export async function runSdkThroughProxy({ baseUrl, apiKey, reportFile, logFile, log, timeoutMs = 20_000 }) {
  const port = await freePort();
  const args = [proxyBin(), "--service", "webdata", "--upstream", baseUrl, "--port", String(port), "--strict", "--report", reportFile];
  if (existsSync(PROXY_KNOWN_DIFFERENCES)) args.push("--known-differences", PROXY_KNOWN_DIFFERENCES);
  log(`contract-proxy ${args.slice(1).join(" ")}`);
  const proxy = startDaemon(process.execPath, args, { logFile });
  const url = `http://127.0.0.1:${port}`;
  const steps = [];
  try {
    // Ready when it accepts a connection: a request would be judged, and land in the report.
    await waitUntil(() => probePort(port), {
      timeoutMs,
      what: "contract-proxy",
      stillRunning: () => proxy.exitCode === null,
    });
    const { default: Firecrawl } = await import("@mendable/firecrawl-js");
    // maxRetries counts attempts: 1 sends each request once.
    const firecrawl = new Firecrawl({ apiKey, apiUrl: url, timeoutMs, maxRetries: 1 });
    const step = async (name, call) => {
      try {
        const value = await call();
        steps.push({ name, ok: true, value });
        log(`sdk ${name}: ${JSON.stringify(value)}`);
        return value;
      } catch (error) {
        steps.push({ name, ok: false, error: error.message });
        log(`sdk ${name} threw: ${error.message}`);
        return undefined;
      }
    };
    const started = await step("startCrawl", () =>
      firecrawl.startCrawl("https://example.com", {
        limit: 3,
        maxDiscoveryDepth: 1,
        includePaths: ["^/docs/.*"],
        excludePaths: ["^/blog/.*"],
        sitemap: "include",
        ignoreQueryParameters: true,
        scrapeOptions: { formats: ["markdown", "links"], onlyMainContent: true, timeout: 15000 },
      }),
    );
    if (started?.id) await step("cancelCrawl", () => firecrawl.cancelCrawl(started.id));
    await step("getTokenUsage", () => firecrawl.getTokenUsage());
  } finally {
    await stopGroup(proxy);
  }
  const summary = summariseProxyReport(existsSync(reportFile) ? readFileSync(reportFile, "utf8") : "");
  return { ...summary, steps };
}
