// Firecrawl's job queue (nuq) on PostgreSQL, as its own apps/nuq-postgres/nuq.sql sets it up, less
// pg_cron: the schema (with pgcrypto) is created as written, and the jobs nuq.sql schedules with
// pg_cron every few seconds are run by the run itself on the same cadence. Debian's pg_cron (1.4)
// refuses a schedule in seconds, and one of those jobs (`nuq_group_crawl_finished`) is what marks
// a crawl finished, so without it no `crawl.completed` is ever sent. The jobs on a cron
// expression (every minute or more: cleaning rows older than an hour, night-time REINDEX, pruning
// pg_cron's own log) are not run: nothing they do can happen within a run.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { whenStopped } from "./processes.mjs";
import { startPostgres } from "./servers.mjs";

/** `SELECT cron.schedule('<name>', '<cadence>', $$<sql>$$);` as nuq.sql writes each job. */
const SCHEDULE = /SELECT\s+cron\.schedule\(\s*'([^']+)'\s*,\s*'([^']+)'\s*,\s*\$\$([\s\S]*?)\$\$\s*\);/gi;
const CRON_EXTENSION = /CREATE\s+EXTENSION\s+IF\s+NOT\s+EXISTS\s+pg_cron\s*;/gi;

/**
 * nuq.sql without pg_cron: `sql` is the schema with the extension and every schedule left out,
 * `jobs` the schedules (`name`, `cadence` as written, `seconds` when the cadence is "<n> seconds",
 * `sql`).
 */
export function withoutPgCron(nuqSql) {
  const jobs = [...nuqSql.matchAll(SCHEDULE)].map(([, name, cadence, sql]) => {
    const inSeconds = /^\s*(\d+)\s+seconds?\s*$/i.exec(cadence);
    return { name, cadence, ...(inSeconds ? { seconds: Number(inSeconds[1]) } : {}), sql: sql.trim() };
  });
  return { sql: nuqSql.replace(SCHEDULE, "").replace(CRON_EXTENSION, ""), jobs };
}

/**
 * Runs each job at its cadence in seconds with `runSql` (which resolves with psql's exit code), one
 * at a time per job; returns `stop()`. A failed run is counted in `failures`, by job name.
 */
export function runEverySeconds(jobs, runSql) {
  const failures = {};
  const timers = jobs
    .filter((job) => job.seconds !== undefined)
    .map((job) => {
      let busy = false;
      const timer = setInterval(() => {
        if (busy) return;
        busy = true;
        Promise.resolve()
          .then(() => runSql(job.sql))
          .catch(() => 1)
          .then((code) => {
            if (code !== 0) failures[job.name] = (failures[job.name] ?? 0) + 1;
            busy = false;
          });
      }, job.seconds * 1000);
      timer.unref();
      return timer;
    });
  return { failures, stop: () => timers.forEach(clearInterval) };
}

/**
 * PostgreSQL for nuq (see startPostgres), with nuq.sql's schema in the `postgres` database (where
 * its Docker image creates it) and its jobs in seconds on their cadence until the run stops.
 * Resolves with the connection URL and the jobs run.
 */
export async function startNuqDatabase({ nuqSql, pgBin, logDir, timeoutMs }) {
  const db = await startPostgres({ pgBin, logDir, name: "firecrawl", timeoutMs });
  const { sql, jobs } = withoutPgCron(nuqSql);
  const schema = path.join(db.dir, "nuq-without-pg-cron.sql");
  writeFileSync(schema, sql);
  if ((await db.psqlFile("postgres", schema)) !== 0) throw new Error(`nuq.sql failed; see ${path.join(logDir, "psql.log")}`);
  const timed = runEverySeconds(jobs, (body) => db.psql("postgres", body));
  whenStopped("nuq-jobs", timed.stop);
  return { url: `postgresql://postgres@127.0.0.1:${db.port}/postgres`, jobs: jobs.filter((job) => job.seconds !== undefined), failures: timed.failures };
}
