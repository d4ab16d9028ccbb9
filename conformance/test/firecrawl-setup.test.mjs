// The offline parts of a Firecrawl run's set-up: the changes made to the checkout before `pnpm
// install`, and nuq.sql read without pg_cron with its jobs in seconds run on a timer.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { CHECKOUT_CHANGES, pnpmOf, prepareFirecrawlCheckout, STAND_IN_DIR } from "../src/firecrawl-checkout.mjs";
import { runEverySeconds, withoutPgCron } from "../src/nuq-postgres.mjs";

/** An apps/api folder with what the preparation reads, in the shape of Firecrawl's files. */
function apiFolder() {
  const dir = mkdtempSync(path.join(tmpdir(), "conformance-checkout-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, "native"));
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "firecrawl-scraper-js", packageManager: "pnpm@11.4.0", dependencies: { "@mendable/firecrawl-rs": "workspace:*" } }));
  writeFileSync(
    path.join(dir, "native", "package.json"),
    JSON.stringify({ name: "@mendable/firecrawl-rs", main: "index.js", browser: "browser.js", scripts: { build: "napi build --platform --release", install: "pnpm build" }, devDependencies: { "@napi-rs/cli": "^3.7.3" } }),
  );
  writeFileSync(path.join(dir, "pnpm-workspace.yaml"), 'packages:\n  - "native"\nallowBuilds:\n  "@mendable/firecrawl-rs": true\n  esbuild: true\n  foundationdb: true\n  koffi: true\n');
  return dir;
}

describe("the checkout's preparation", () => {
  it("puts the stand-in in native/, points its manifest at it without the napi build, and turns FoundationDB's build off", () => {
    const dir = apiFolder();
    prepareFirecrawlCheckout(dir);
    for (const file of ["index.mjs", "index.d.ts"]) expect(readFileSync(path.join(dir, "native", file), "utf8")).toBe(readFileSync(path.join(STAND_IN_DIR, file), "utf8"));
    const manifest = JSON.parse(readFileSync(path.join(dir, "native", "package.json"), "utf8"));
    expect(manifest).toEqual({ name: "@mendable/firecrawl-rs", main: "index.mjs", types: "index.d.ts", scripts: { build: "napi build --platform --release" }, devDependencies: { "@napi-rs/cli": "^3.7.3" } });
    expect(readFileSync(path.join(dir, "pnpm-workspace.yaml"), "utf8")).toBe('packages:\n  - "native"\nallowBuilds:\n  "@mendable/firecrawl-rs": true\n  esbuild: true\n  foundationdb: false\n  koffi: true\n');
    expect(CHECKOUT_CHANGES.buildsTurnedOff).toEqual(["foundationdb"]);
  });

  it("is idempotent, and refuses a workspace that lists no build for FoundationDB", () => {
    const dir = apiFolder();
    prepareFirecrawlCheckout(dir);
    const once = ["native/package.json", "pnpm-workspace.yaml"].map((file) => readFileSync(path.join(dir, file), "utf8"));
    prepareFirecrawlCheckout(dir);
    expect(["native/package.json", "pnpm-workspace.yaml"].map((file) => readFileSync(path.join(dir, file), "utf8"))).toEqual(once);
    writeFileSync(path.join(dir, "pnpm-workspace.yaml"), 'packages:\n  - "native"\n');
    expect(() => prepareFirecrawlCheckout(dir)).toThrow("lists no allowBuilds entry for foundationdb");
  });

  it("installs with the pnpm the checkout names", () => {
    const dir = apiFolder();
    expect(pnpmOf(dir)).toBe("pnpm@11.4.0");
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ packageManager: "pnpm@11.4.0+sha512.abc" }));
    expect(pnpmOf(dir)).toBe("pnpm@11.4.0");
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ packageManager: "yarn@4.0.0" }));
    expect(() => pnpmOf(dir)).toThrow("names no pnpm version");
  });
});

// Written here in the form nuq.sql uses (apps/nuq-postgres/nuq.sql): an extension, a table, a job
// in seconds with two statements, a job on a cron expression.
const NUQ_SQL = `CREATE EXTENSION IF NOT EXISTS pgcrypto;
CREATE EXTENSION IF NOT EXISTS pg_cron;
CREATE TABLE IF NOT EXISTS nuq.jobs (id uuid NOT NULL DEFAULT gen_random_uuid());

SELECT cron.schedule('jobs_reaper', '15 seconds', $$
  UPDATE nuq.jobs SET id = id;
  SELECT 1;
$$);

SELECT cron.schedule('jobs_clean',  '*/5 * * * *',  $$DELETE FROM nuq.jobs;$$);
`;

describe("nuq.sql without pg_cron", () => {
  it("keeps the schema, leaves out pg_cron and its schedules, and reads each schedule's cadence", () => {
    const { sql, jobs } = withoutPgCron(NUQ_SQL);
    expect(sql).toContain("CREATE EXTENSION IF NOT EXISTS pgcrypto;");
    expect(sql).toContain("CREATE TABLE IF NOT EXISTS nuq.jobs");
    expect(sql).not.toMatch(/pg_cron|cron\.schedule|UPDATE nuq\.jobs|DELETE FROM/);
    expect(jobs).toEqual([
      { name: "jobs_reaper", cadence: "15 seconds", seconds: 15, sql: "UPDATE nuq.jobs SET id = id;\n  SELECT 1;" },
      { name: "jobs_clean", cadence: "*/5 * * * *", sql: "DELETE FROM nuq.jobs;" },
    ]);
  });

  describe("the jobs in seconds, on a timer", () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it("runs each at its cadence, never twice at once, counts failures, leaves cron expressions alone and stops", async () => {
      vi.useFakeTimers();
      const { jobs } = withoutPgCron(NUQ_SQL);
      const ran = [];
      let finish;
      const runSql = (sql) => {
        ran.push(sql);
        return new Promise((resolve) => {
          finish = resolve;
        });
      };
      const timed = runEverySeconds(jobs, runSql);
      await vi.advanceTimersByTimeAsync(14_999);
      expect(ran).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(ran).toEqual([jobs[0].sql]);
      await vi.advanceTimersByTimeAsync(30_000);
      expect(ran).toHaveLength(1);
      finish(3);
      await vi.advanceTimersByTimeAsync(15_000);
      expect(ran).toHaveLength(2);
      expect(timed.failures).toEqual({ jobs_reaper: 1 });
      finish(0);
      timed.stop();
      await vi.advanceTimersByTimeAsync(60_000);
      expect(ran).toHaveLength(2);
      expect(timed.failures).toEqual({ jobs_reaper: 1 });
    });
  });
});
