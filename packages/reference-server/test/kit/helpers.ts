import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "@api-contracts/contract-tests";
import { defaultFixtures } from "../../src/index.js";

/** One behaviour-level run of the kit, on a small machine shared with other suites. */
export const KIT_RUN_TIMEOUT_MS = 180_000;

export interface CliRun {
  code: number;
  out: string[];
  err: string[];
  /** Failed checks as `operation/check`, in order. */
  failed: string[];
  passed: string[];
}

/** Runs the kit's command line in-process with its own environment and captures every line. */
export async function runCli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (line) => out.push(line), err: (line) => err.push(line), env });
  const names = (status: string) =>
    out.filter((line) => line.startsWith(`${status} `)).map((line) => {
      const [, operation, check] = line.split(" ");
      return `${operation}/${check!.replace(/:$/, "")}`;
    });
  return { code, out, err, failed: names("FAIL"), passed: names("PASS") };
}

/** A temporary folder holding this server's default fixtures as a file. */
export function fixturesOnDisk(prefix: string): { dir: string; file: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const file = path.join(dir, "fixtures.json");
  writeFileSync(file, JSON.stringify(defaultFixtures));
  return { dir, file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
