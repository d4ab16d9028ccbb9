import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "../../src/index.js";
import { runInProcess, type CliRun } from "@api-contracts/dev-tools/testing/cli-run";
import { defaultFixtures } from "@api-contracts/reference-server";

export type { CliRun };

/** Runs the `contract-test` command line in-process and captures what it prints. */
export const runCli = (args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> => runInProcess(main, args, env);

/** One behaviour-level run of the kit, on a small machine shared with other suites. */
export const KIT_RUN_TIMEOUT_MS = 180_000;

/**
 * Request deadlines of a server under the kit's behaviour level: its stalled-body probe waits
 * `--timeout` (10 s) for the 408, so a server that is to pass it, not warn, gives up well before that.
 */
export const KIT_TARGET_LIMITS = { requestTimeoutMs: 1_000, headersTimeoutMs: 1_000 };

/** The secret a web data server under the kit signs its crawl calls with, and the kit checks them with. */
export const KIT_WEBHOOK_SECRET = "reference-kit-webhook-secret";


/** A temporary folder holding this server's default fixtures as a file. */
export function fixturesOnDisk(prefix: string): { dir: string; file: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const file = path.join(dir, "fixtures.json");
  writeFileSync(file, JSON.stringify(defaultFixtures));
  return { dir, file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
