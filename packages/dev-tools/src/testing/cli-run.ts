// Runs the contract-test command line in-process, for tests that assert what a user of the command
// would see. The caller passes the kit's `main`, so this package depends on no package it tests.

/** Where a command line writes its lines and reads its environment (the kit's `CliIo`). */
export interface CommandIo {
  out: (line: string) => void;
  err: (line: string) => void;
  env: Record<string, string | undefined>;
}

/** A command line's entry point: runs `args` and resolves to the exit code. */
export type CommandMain = (args: string[], io: CommandIo) => Promise<number>;

/** What one in-process run of the command line printed and answered. */
export interface CliRun {
  code: number;
  out: string[];
  err: string[];
  /** Failed checks as `operation/check`, in order. */
  failed: string[];
  passed: string[];
  /** Checks that ended as warnings (reported, not failing the run by default). */
  warned: string[];
  /** Failures and warnings a known difference explains. */
  known: string[];
  skipped: string[];
}

/** Runs `main` with `args` and its own environment and captures every line it prints. */
export async function runInProcess(main: CommandMain, args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (line) => out.push(line), err: (line) => err.push(line), env });
  const names = (status: string) =>
    out.filter((line) => line.startsWith(`${status} `)).map((line) => {
      const [, operation, check] = line.split(" ");
      return `${operation}/${check!.replace(/:$/, "")}`;
    });
  return { code, out, err, failed: names("FAIL"), passed: names("PASS"), warned: names("WARN"), known: names("KNOWN"), skipped: names("SKIP") };
}
