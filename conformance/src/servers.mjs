// What the runs of different servers share: the commit of a checkout, programs from npm, Redis and
// PostgreSQL in folders of the run, whether the API answers, how long a step took, the judgement
// of the run's exchanges, and the kit's run at each level.
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadKnownDifferences } from "@api-contracts/contract-core";
import { failuresOf, judgeRecords, KNOWN_FILE, readKnown, recordedDir, summaryOf, writeRecords } from "./judgement.mjs";
import { freePort, probePort, run, runStep, startDaemon, waitUntil, whenStopped } from "./processes.mjs";

const require = createRequire(import.meta.url);

/** The commit of the checkout: `given` (`--commit`), else `git rev-parse HEAD` in it, else "unknown". */
export function commitOf(source, given) {
  if (given) return given;
  try {
    return execFileSync("git", ["-C", source, "rev-parse", "HEAD"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 5_000 }).trim();
  } catch {
    return "unknown";
  }
}

/** Sends one inline command to the Redis server on the port; true when its answer starts with `expected`. */
export function redisReplies(port, command, expected) {
  return probePort(port, (socket, done) => {
    socket.once("data", (data) => done(data.toString().startsWith(expected)));
    socket.write(`${command}\r\n`);
  });
}

/** Starts redis-server on a free port of 127.0.0.1, without persistence; resolves with the port once it answers PING. */
export async function startRedis(logDir, timeoutMs) {
  const port = await freePort();
  const redis = startDaemon("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { cwd: logDir, logFile: path.join(logDir, "redis.log") });
  await waitUntil(() => redisReplies(port, "PING", "+PONG"), { timeoutMs, what: "redis-server", stillRunning: () => redis.exitCode === null });
  return port;
}

/**
 * The folder of a program an npm package installs (`bin`), fetched by npx into its cache, run from
 * a folder of its own (npx in a checkout would read the checkout's settings). `PATH` is the one
 * the program is looked up with (another Node first on it changes nothing here).
 */
export async function binFromNpm(spec, bin, { logDir, timeoutMs }) {
  const out = path.join(logDir, `${bin}-path.log`);
  const code = await run("npx", ["-y", "-p", spec, "sh", "-c", `command -v ${bin}`], { cwd: logDir, timeoutMs, logFile: out });
  const found = existsSync(out) ? readFileSync(out, "utf8").trim().split("\n").pop() : "";
  if (code !== 0 || !found) throw new Error(`npx -y -p ${spec} did not give ${bin}; see ${out}`);
  return path.dirname(found);
}

/** The folder of PostgreSQL's server programs: `pg_config --bindir`, else the newest /usr/lib/postgresql/<N>/bin. */
export function postgresBinDir() {
  try {
    const dir = execFileSync("pg_config", ["--bindir"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 5_000 }).trim();
    if (existsSync(path.join(dir, "postgres"))) return dir;
  } catch {
    // no pg_config on the PATH
  }
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base) ? readdirSync(base).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) if (existsSync(path.join(base, version, "bin", "postgres"))) return path.join(base, version, "bin");
  return undefined;
}

/** PostgreSQL refuses to run as root: as root, its programs run as the `postgres` user. */
function asPostgresUser(command, args) {
  if (process.getuid?.() !== 0) return [command, args];
  return ["runuser", ["-u", "postgres", "--", command, ...args]];
}

/**
 * PostgreSQL in a folder of its own (removed at the end), on a free port of 127.0.0.1, trusting
 * local connections, `fsync` off; `pgBin` is postgresBinDir()'s. Resolves once it answers, with its
 * port and `psql(database, sql)` / `psqlFile(database, file)`, which resolve with psql's exit code
 * (its output goes to psql.log in `logDir`).
 */
export async function startPostgres({ pgBin, logDir, name, timeoutMs }) {
  const pgDir = mkdtempSync(path.join(tmpdir(), `conformance-${name}-pg-`));
  whenStopped(`${name}-postgres-folder`, () => rmSync(pgDir, { recursive: true, force: true }));
  if (process.getuid?.() === 0) {
    const idOfPostgres = (flag) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8", timeout: 5_000 }).trim());
    chownSync(pgDir, idOfPostgres("-u"), idOfPostgres("-g"));
  }
  const [initdb, initdbArgs] = asPostgresUser(path.join(pgBin, "initdb"), ["-D", path.join(pgDir, "data"), "-U", "postgres", "--auth=trust", "--encoding=UTF8"]);
  await runStep("initdb", initdb, initdbArgs, { cwd: pgDir, timeoutMs: 60_000, logFile: path.join(logDir, "initdb.log") });
  const port = await freePort();
  const [postgres, postgresArgs] = asPostgresUser(path.join(pgBin, "postgres"), [
    "-D", path.join(pgDir, "data"), "-p", String(port), "-k", pgDir,
    "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "max_connections=300",
  ]);
  const pg = startDaemon(postgres, postgresArgs, { cwd: pgDir, logFile: path.join(logDir, "postgres.log") });
  const psqlWith = (database, args) =>
    run("psql", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", database, "-v", "ON_ERROR_STOP=1", "-q", ...args], { env: { PATH: `${pgBin}:${process.env.PATH ?? ""}` }, timeoutMs: 60_000, logFile: path.join(logDir, "psql.log") });
  const psql = (database, sql) => psqlWith(database, ["-c", sql]);
  const psqlFile = (database, file) => psqlWith(database, ["-f", file]);
  await waitUntil(async () => (await psql("postgres", "select 1")) === 0, { timeoutMs, what: "PostgreSQL", stillRunning: () => pg.exitCode === null });
  return { port, dir: pgDir, psql, psqlFile };
}

/** Whether the API answers anything over HTTP. */
export async function httpAnswers(baseUrl) {
  const response = await fetch(baseUrl, { signal: AbortSignal.timeout(3_000) });
  await response.body?.cancel();
  return true;
}

/** The time since `since` (Date.now() then), in seconds. */
export function seconds(since) {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/**
 * With `record`, writes the run's exchanges (and crawls with a webhook) there; then judges them as
 * the replay of the records judges them, with the accepted differences the replay reads:
 * `<record>/known-differences.json` when the run records into a folder that has one, else the spec
 * package's list for the server. Prints every failure and resolves with their number.
 */
export function recordAndJudge({ server, exchanges, webhookCrawls, record, log }) {
  if (record) log(`recorded in ${path.resolve(record)}: ${writeRecords(path.resolve(record), exchanges, webhookCrawls).join(", ")}`);
  const folder = record && existsSync(path.join(path.resolve(record), KNOWN_FILE)) ? path.resolve(record) : path.join(recordedDir(), server);
  const judgement = judgeRecords(server, { exchanges, webhookCrawls }, readKnown(folder));
  const failures = failuresOf(judgement);
  for (const failure of failures) log(`NOT KNOWN ${failure}`);
  log(`${summaryOf(judgement)} (known differences: ${path.join(folder, KNOWN_FILE)})`);
  return failures.length;
}

/** A kit report's totals on one line: passed, failed, warnings, known, stale (or why there are none). */
function kitTotals(reportFile) {
  let report;
  try {
    report = JSON.parse(readFileSync(reportFile, "utf8"));
  } catch (error) {
    return `no report (${error.code ?? error.message})`;
  }
  const stale = report.stale?.length ?? 0;
  return `${report.passed} passed, ${report.failed} failed, ${report.warnings ?? 0} warnings, ${report.known ?? 0} known, ${stale} stale${report.skipped ? `, ${report.skipped} skipped` : ""}`;
}

/**
 * Runs `contract-test` once per level against the server. Each level gets the entries of the
 * known-differences file that name its own checks, so that one level's run does not call another
 * level's entries stale. Resolves with the worst exit code.
 */
export async function runKitLevels({ service, baseUrl, apiKey, levels, known, report, logDir, extraArgs = () => [], timeoutMs, log }) {
  const kit = require.resolve("@api-contracts/contract-tests/package.json");
  const kitBin = path.join(path.dirname(kit), JSON.parse(readFileSync(kit, "utf8")).bin["contract-test"]);
  const { listChecks } = await import("@api-contracts/contract-tests");
  const entries = existsSync(known) ? loadKnownDifferences(known) : [];
  let worst = 0;
  for (const [index, level] of levels.entries()) {
    const levelReport = index === 0 ? report : report.replace(/(\.json)?$/, `-${level}.json`);
    const args = [kitBin, "--service", service, "--base-url", baseUrl, "--level", level, "--report", levelReport, ...extraArgs(level)];
    // The kit's checks are listed here, in this process, only when there are entries to sort.
    const checks = new Set(entries.length === 0 ? [] : listChecks(service, level).map((check) => `${check.operation} ${check.name}`));
    const own = entries.filter((entry) => checks.has(`${entry.operation} ${entry.check}`));
    if (own.length > 0) {
      const levelKnown = path.join(logDir, `known-differences-${level}.json`);
      writeFileSync(levelKnown, `${JSON.stringify(own, null, 2)}\n`);
      args.push("--known-differences", levelKnown);
    }
    rmSync(levelReport, { force: true });
    log(`contract-test ${args.slice(1).join(" ")}`);
    // The key goes by environment, never on a command line a process listing shows.
    const code = await run(process.execPath, args, { env: { ...process.env, CONTRACT_API_KEY: apiKey }, timeoutMs });
    log(`contract-test --level ${level} exit ${code}: ${kitTotals(levelReport)}; report ${levelReport}`);
    worst = Math.max(worst, code);
  }
  return worst;
}
