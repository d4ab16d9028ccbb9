#!/usr/bin/env node
// `npm test`: builds every workspace through turbo (from its cache after `npm ci`), then runs every
// workspace's tests through turbo, two at a time (the machines have two cores), the longest first,
// and ends with one summary line over all of them, so that a reader (or CI) sees the total without
// scrolling through each package. Turbo alone starts tasks in graph order, which left the longest
// suites for last and one core idle at the end; here a suite starts as soon as a core is free.
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { repoRoot, workspacePackages } from "./package-graph.mjs";

const LANES = 2;
/**
 * The suites that take longest, longest first (seconds on two shared cores, `npm test -- --summarize`):
 * the kit (its generated requests, and its runs against the reference server and its faulty
 * variants), the docs (a browser drives every operation's console), the repository's (the packages
 * installed from their tarballs), the reference server and the proxy. The others take a few
 * seconds each and fill the gaps.
 */
const LONGEST_FIRST = ["@api-contracts/contract-tests", "@api-contracts/docs", "@api-contracts/repo-tools", "@api-contracts/reference-server", "@api-contracts/contract-proxy"];

const env = { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" };
const extra = process.argv.slice(2);

const build = spawnSync("npx", ["turbo", "run", "build", "--output-logs=errors-only"], { stdio: "inherit", env });
if (build.status !== 0) process.exit(build.status ?? 1);

const withTests = workspacePackages(repoRoot)
  .filter((pkg) => pkg.scripts.test)
  .map((pkg) => pkg.name);
const rank = (name) => (LONGEST_FIRST.includes(name) ? LONGEST_FIRST.indexOf(name) : LONGEST_FIRST.length);
const queue = withTests.sort((a, b) => rank(a) - rank(b));

const totals = { passed: 0, failed: 0, skipped: 0 };
const packagesWithTests = new Set();
const failedPackages = [];

function runSuite(name) {
  return new Promise((resolve) => {
    // --only: the builds ran above; each suite needs nothing else.
    const turbo = spawn("npx", ["turbo", "run", "test", "--only", `--filter=${name}`, ...extra], { stdio: ["ignore", "pipe", "inherit"], env });
    const lines = createInterface({ input: turbo.stdout });
    lines.on("line", (line) => {
      // Turbo's own header and footer lines are left out: each suite's are the same.
      if (!/^\S+?:test:/.test(line)) return;
      process.stdout.write(`${line}\n`);
      // vitest closes each run with e.g. "Tests  2 failed | 40 passed | 1 skipped (43)".
      const summary = /^(\S+?):test:\s+Tests\s+(.+)\(\d+\)\s*$/.exec(line.replace(/\x1b\[[0-9;]*m/g, ""));
      if (!summary) return;
      packagesWithTests.add(summary[1]);
      for (const part of summary[2].split("|")) {
        const count = /(\d+)\s+(passed|failed|skipped|todo)/.exec(part);
        if (count && count[2] in totals) totals[count[2]] += Number(count[1]);
      }
    });
    turbo.on("close", (code) => {
      if (code !== 0) failedPackages.push(name);
      resolve();
    });
  });
}

async function lane() {
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) await runSuite(name);
}

await Promise.all(Array.from({ length: LANES }, lane));
console.log(`\n${packagesWithTests.size} packages tested`);
if (failedPackages.length > 0) console.log(`Failed: ${failedPackages.join(", ")}`);
console.log(`Tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failedPackages.length > 0 ? 1 : 0);
