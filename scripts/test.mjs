#!/usr/bin/env node
// `npm test`: runs every workspace's tests through turbo and ends with one summary line over all
// of them, so that a reader (or CI) sees the total without scrolling through each package.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const turbo = spawn("npx", ["turbo", "run", "test", "--continue", "--concurrency=2", ...process.argv.slice(2)], {
  stdio: ["ignore", "pipe", "inherit"],
  env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" },
});

const totals = { passed: 0, failed: 0, skipped: 0 };
const packagesWithTests = new Set();
const lines = createInterface({ input: turbo.stdout });
lines.on("line", (line) => {
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
  console.log(`\n${packagesWithTests.size} packages tested`);
  console.log(`Tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  process.exit(code ?? 1);
});
