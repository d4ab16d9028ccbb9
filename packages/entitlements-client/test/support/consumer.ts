// Uses a client the way an application developer does: from its packed tarball, installed into
// a fresh project, compiled with strict settings and run as plain Node.js.
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, writeFileSync, rmSync, readdirSync, symlinkSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "./typescript.js";

const packagesDir = fileURLToPath(new URL("../../../", import.meta.url));
const workspaceModules = fileURLToPath(new URL("../../../../node_modules/", import.meta.url));

export interface Consumer {
  dir: string;
  /** Type-checks and compiles `source` as main.ts; returns the compiler diagnostics. */
  compile(source: string): string[];
  /** Runs the compiled main.js with `env` added to the environment; resolves to its stdout. */
  run(env: Record<string, string>): Promise<string>;
  remove(): void;
}

/** Packs the named packages (folders under packages/) and installs the tarballs into a new project. */
export function installPacked(packageNames: string[]): Consumer {
  const dir = mkdtempSync(path.join(tmpdir(), "client-consumer-"));
  const tarballs = packageNames.map((name) => {
    const out = execFileSync("npm", ["pack", "--silent", "--pack-destination", dir], { cwd: path.join(packagesDir, name), encoding: "utf8" });
    return path.join(dir, out.trim().split("\n").pop() ?? "");
  });
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  // Every dependency of the clients is already in the npm cache, so no network is needed.
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", ...tarballs], { cwd: dir, stdio: "pipe" });
  // Node's own types, for `process` in the program under test.
  mkdirSync(path.join(dir, "node_modules", "@types"), { recursive: true });
  symlinkSync(path.join(workspaceModules, "@types", "node"), path.join(dir, "node_modules", "@types", "node"), "dir");
  return {
    dir,
    compile(source) {
      writeFileSync(path.join(dir, "main.ts"), source);
      return compile([path.join(dir, "main.ts")], { outDir: dir });
    },
    async run(env) {
      const { stdout } = await promisify(execFile)(process.execPath, [path.join(dir, "main.js")], { cwd: dir, env: { ...process.env, ...env }, encoding: "utf8" });
      return stdout;
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Lists what a package's tarball would contain. */
export function packedFiles(packageName: string): string[] {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json"], { cwd: path.join(packagesDir, packageName), encoding: "utf8" });
  const [report] = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
  return (report?.files ?? []).map((f) => f.path).sort();
}

export const installedPackages = (consumer: Consumer): string[] => readdirSync(path.join(consumer.dir, "node_modules", "@api-contracts"));
