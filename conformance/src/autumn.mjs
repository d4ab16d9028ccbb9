// Runs Autumn's open-source server (useautumn/autumn, `server/`) from a checkout of the monorepo on
// this machine: Bun from npm, PostgreSQL and Redis from the system, a stand-in for the message
// queue, no outside service. Migrates and seeds with Autumn's own scripts and API, records its
// answers to check, track and finalize, and runs the kit.
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { AUTUMN_SEED, autumnRequests } from "./autumn-requests.mjs";
import { exchange } from "./exchanges.mjs";
import { freePort, onPath, runStep, startDaemon, stopAll, waitUntil, whenStopped } from "./processes.mjs";
import { binFromNpm, commitOf, httpAnswers, postgresBinDir, recordAndJudge, redisReplies, runKitLevels, seconds, startPostgres, startRedis } from "./servers.mjs";
import { startSqsStandIn } from "./sqs-stand-in.mjs";


/** Bun from the npm registry: the version of the checkout's `.bun-version` at 187c0a7. */
const BUN = "bun@1.3.14";

const AUTUMN_LIMITS = {
  bunMs: 5 * 60_000,
  installMs: 15 * 60_000,
  postgresReadyMs: 30_000,
  redisReadyMs: 15_000,
  migrateMs: 5 * 60_000,
  seedMs: 3 * 60_000,
  apiReadyMs: 120_000,
  requestMs: 20_000,
  contractTestMs: 10 * 60_000,
};

/**
 * What the checkout's manifests are changed in, before `bun install`, so that it installs from
 * the npm registry this machine reaches: the workspaces the server does not need (whose pinned
 * versions the registry lacks) are left out, the pins of the server that the registry lacks are
 * moved to versions it has (each is imported only by code a balance request does not reach:
 * Tinybird analytics, MotherDuck, Slack cards), and the Infisical CLI (its install script
 * downloads from GitHub) is not installed.
 */
export const REGISTRY_GAPS = {
  droppedWorkspaces: ["apps/leaf", "apps/website", "apps/docs"],
  pins: { "@tinybirdco/sdk": "0.0.74", "takumi-js": "1.8.7", "@duckdbfan/drizzle-duckdb": "1.3.4" },
  droppedRootDevDependencies: ["@infisical/cli"],
  droppedRootScripts: ["prepare", "postinstall"],
};

function readJson(file) {
  return JSON.parse(readFileSync(file, "utf8"));
}

function writeJson(file, value) {
  writeFileSync(file, `${JSON.stringify(value, null, "\t")}\n`);
}

/** Applies REGISTRY_GAPS to the checkout (idempotent). */
export function prepareCheckout(root) {
  const rootFile = path.join(root, "package.json");
  const manifest = readJson(rootFile);
  manifest.workspaces.packages = manifest.workspaces.packages.filter((p) => !REGISTRY_GAPS.droppedWorkspaces.includes(p));
  for (const name of REGISTRY_GAPS.droppedRootDevDependencies) delete manifest.devDependencies?.[name];
  manifest.trustedDependencies = (manifest.trustedDependencies ?? []).filter((name) => !REGISTRY_GAPS.droppedRootDevDependencies.includes(name));
  for (const name of REGISTRY_GAPS.droppedRootScripts) delete manifest.scripts?.[name];
  writeJson(rootFile, manifest);
  for (const workspace of ["server", "scripts"]) {
    const file = path.join(root, workspace, "package.json");
    const pkg = readJson(file);
    for (const deps of [pkg.dependencies, pkg.devDependencies]) {
      for (const [name, version] of Object.entries(REGISTRY_GAPS.pins)) if (deps?.[name]) deps[name] = version;
    }
    writeJson(file, pkg);
  }
}

/** The secret key Autumn's setup-test script wrote to server/.env.local (never logged). */
function seededSecretKey(root) {
  const file = path.join(root, "server", ".env.local");
  const line = existsSync(file) ? readFileSync(file, "utf8").split("\n").find((l) => l.startsWith("UNIT_TEST_AUTUMN_SECRET_KEY=")) : undefined;
  const key = line?.slice(line.indexOf("=") + 1).trim().replace(/^"|"$/g, "");
  if (!key || !key.startsWith("am_sk_")) throw new Error(`setup-test wrote no secret key to ${file}`);
  return key;
}

/** Seeds the customer and its balances through Autumn's API. */
async function seedThroughApi(baseUrl, key, seed, log) {
  const post = async (route, body) => {
    const response = await fetch(new URL(route, baseUrl), {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(AUTUMN_LIMITS.requestMs),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`seeding: POST ${route} ${JSON.stringify(body)} answered ${response.status} ${text.slice(0, 300)}`);
    log(`seeded: POST ${route} ${JSON.stringify(body)} -> ${response.status}`);
  };
  await post("/v1/customers", { id: seed.customerId, name: "Ada", email: "ada@example.com" });
  await post("/v1/balances.create", { customer_id: seed.customerId, feature_id: seed.meteredFeatureId, included_grant: seed.meteredBalance, reset: { interval: "month" } });
  await post("/v1/balances.create", { customer_id: seed.customerId, feature_id: seed.booleanFeatureId });
  await post("/v1/balances.create", { customer_id: seed.customerId, feature_id: seed.unlimitedFeatureId, unlimited: true });
}

/** The kit's fixtures for the seeded ids (the key is given through the environment). */
export function autumnFixtures(seed = AUTUMN_SEED) {
  return {
    entitlements: {
      customer_id: seed.customerId,
      metered_feature_id: seed.meteredFeatureId,
      boolean_feature_id: seed.booleanFeatureId,
      unlimited_feature_id: seed.unlimitedFeatureId,
      denied_feature_id: seed.deniedFeatureId,
      unknown_customer_id: seed.unknownCustomerId,
    },
  };
}

/**
 * The whole run. Resolves with the exit code: the kit's (0 or 1; 1 when either level fails), or
 * 2 when set-up fails. Whatever happens, every process it started is stopped before it resolves.
 */
export async function runAutumn({ source, record, commit, reportFile, behavior = true, log = console.log }) {
  const started = Date.now();
  const root = path.resolve(source);
  const logDir = mkdtempSync(path.join(tmpdir(), "conformance-autumn-"));
  try {
    if (!existsSync(path.join(root, "server", "src", "index.ts")) || !existsSync(path.join(root, "shared", "drizzle"))) {
      throw new Error(`${root} is not a checkout of useautumn/autumn (no server/src/index.ts and shared/drizzle)`);
    }
    if (!(await onPath("redis-server"))) throw new Error("redis-server is not on the PATH; install it (Debian: apt-get install -y redis-server), then run again");
    const pgBin = postgresBinDir();
    if (!pgBin || !(await onPath("psql"))) throw new Error("PostgreSQL is not installed (Debian: apt-get install -y postgresql), then run again");
    const sha = commitOf(root, commit);
    const server = `useautumn/autumn@${sha}`;
    log(`source ${root} (${server}); PostgreSQL from ${pgBin}; logs in ${logDir}`);

    const bunDir = await binFromNpm(BUN, "bun", { logDir, timeoutMs: AUTUMN_LIMITS.bunMs });
    const PATH = `${bunDir}:${pgBin}:${process.env.PATH ?? ""}`;
    prepareCheckout(root);
    log(`installing dependencies with ${BUN} ...`);
    await runStep("bun install", "bun", ["install"], { cwd: root, env: { PATH, HOME: process.env.HOME ?? tmpdir() }, timeoutMs: AUTUMN_LIMITS.installMs, logFile: path.join(logDir, "install.log") });

    const { port: pgPort, psql } = await startPostgres({ pgBin, logDir, name: "autumn", timeoutMs: AUTUMN_LIMITS.postgresReadyMs });
    if ((await psql("postgres", "create database autumn")) !== 0 || (await psql("autumn", "create extension if not exists pg_trgm")) !== 0) {
      throw new Error(`creating the database failed; see ${path.join(logDir, "psql.log")}`);
    }

    const redisPort = await startRedis(logDir, AUTUMN_LIMITS.redisReadyMs);

    const queue = await startSqsStandIn();
    whenStopped("autumn-queue-stand-in", () => queue.close());
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const databaseUrl = `postgresql://postgres@127.0.0.1:${pgPort}/autumn`;
    const redisUrl = `redis://127.0.0.1:${redisPort}`;
    const queueBase = `${queue.baseUrl}/000000000000`;
    // Only what the server needs: no keys of outside services reach it from this shell. The
    // secrets are made up per run; the AWS pair only signs requests to the queue stand-in.
    const env = {
      PATH,
      HOME: process.env.HOME ?? tmpdir(),
      NODE_ENV: "development",
      DATABASE_URL: databaseUrl,
      CRITICAL_DATABASE_URL: databaseUrl,
      DATABASE_CRITICAL_URL: databaseUrl,
      AUTUMN_DB_DIRECT: "1",
      REDIS_URL: redisUrl,
      MISC_CACHE_DRAGONFLY_PUBLIC_URL: redisUrl,
      CACHE_V2_DRAGONFLY_URL: redisUrl,
      SQS_QUEUE_URL_V2: `${queueBase}/autumn.fifo`,
      TRACK_SQS_QUEUE_URL: `${queueBase}/autumn-track.fifo`,
      TRACK_ASYNC_SQS_QUEUE_URL: `${queueBase}/autumn-track.fifo`,
      TRACK_ASYNC_STANDARD_SQS_QUEUE_URL: `${queueBase}/autumn-track-async`,
      AWS_ACCESS_KEY_ID: "conformance",
      AWS_SECRET_ACCESS_KEY: "conformance",
      AWS_REGION: "us-east-1",
      BETTER_AUTH_SECRET: randomBytes(32).toString("hex"),
      ENCRYPTION_IV: randomBytes(8).toString("hex"),
      ENCRYPTION_PASSWORD: randomBytes(16).toString("hex"),
      AUTUMN_API_URL: baseUrl,
      CLIENT_URL: "http://127.0.0.1:3000",
      TW_SKIP_STRIPE_ACCOUNT: "true",
      SERVER_PORT: String(port),
    };
    const step = async (what, args, cwd, timeoutMs, logName) => {
      log(`${what} ...`);
      await runStep(what, "bun", args, { cwd, env, timeoutMs, logFile: path.join(logDir, logName) });
    };
    await step("migrating (bun db migrate --bootstrap)", ["db", "migrate", "--bootstrap"], root, AUTUMN_LIMITS.migrateMs, "migrate.log");
    await step("SQL functions (scripts/migrations/migrate-functions.ts)", ["scripts/migrations/migrate-functions.ts"], root, AUTUMN_LIMITS.migrateMs, "functions.log");
    await step("seeding the test organisation (scripts/setup/setup-test.ts)", ["scripts/setup/setup-test.ts", "--yes"], root, AUTUMN_LIMITS.seedMs, "seed.log");
    const key = seededSecretKey(root);
    // setup-test's organisation is dated 3 February 2025, which pins the response version of a
    // request without x-api-version to 0.2 (createdAtToVersion); dated now, it gets the latest, as
    // a new account does. Its cached copy in Redis is dropped with the rest.
    if ((await psql("autumn", `update organizations set created_at = ${Date.now()} where slug = '${AUTUMN_SEED.organisationSlug}'`)) !== 0) {
      throw new Error(`dating the organisation failed; see ${path.join(logDir, "psql.log")}`);
    }
    if (!(await redisReplies(redisPort, "FLUSHALL", "+OK"))) throw new Error("redis-server did not answer FLUSHALL");

    const api = startDaemon("bun", ["src/index.ts"], { cwd: path.join(root, "server"), env, logFile: path.join(logDir, "api.log") });
    await waitUntil(() => httpAnswers(baseUrl), { timeoutMs: AUTUMN_LIMITS.apiReadyMs, what: "the Autumn server", stillRunning: () => api.exitCode === null });
    await seedThroughApi(baseUrl, key, AUTUMN_SEED, log);
    log(`set-up took ${seconds(started)}; API on ${baseUrl}, PostgreSQL on ${pgPort}, redis on ${redisPort}, queue stand-in ${queue.baseUrl}`);

    const exchanges = [];
    for (const request of autumnRequests()) {
      const item = await exchange(baseUrl, request, { apiKey: key, server, values: {}, timeoutMs: AUTUMN_LIMITS.requestMs });
      exchanges.push(item);
      log(`${String(item.status).padEnd(4)}${item.path}  ${item.note.slice(0, 100)}`);
      if (api.exitCode !== null) throw new Error(`the Autumn server exited during the requests; see ${path.join(logDir, "api.log")}`);
    }
    log(`${exchanges.length} exchanges; queue stand-in took ${JSON.stringify(queue.taken)}`);
    const unexplained = recordAndJudge({ server: "autumn", exchanges, record, log });

    const fixtures = path.join(logDir, "fixtures.json");
    writeJson(fixtures, autumnFixtures());
    const worst = await runKitLevels({
      service: "entitlements",
      baseUrl,
      apiKey: key,
      levels: behavior ? ["schema", "behavior"] : ["schema"],
      known: path.join(path.dirname(new URL(import.meta.url).pathname), "..", "known-differences", "autumn.json"),
      report: reportFile ? path.resolve(reportFile) : path.join(logDir, "contract-test-report.json"),
      logDir,
      extraArgs: () => ["--fixtures", fixtures],
      timeoutMs: AUTUMN_LIMITS.contractTestMs,
      log,
    });
    log(`whole run ${seconds(started)}`);
    return worst !== 0 ? worst : unexplained > 0 ? 1 : 0;
  } finally {
    await stopAll();
  }
}
