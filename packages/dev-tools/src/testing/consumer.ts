// Uses a package the way an application developer does: from its packed tarball, installed into a
// fresh project, compiled with strict settings and run as plain Node.js. Installing needs no
// network: the package and everything its `dependencies` pull in are packed from the folders this
// checkout already has, and npm installs the tarballs with --offline.
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { compile } from "./typescript.js";

interface Manifest {
  name: string;
  main?: string;
  types?: string;
  exports?: unknown;
  bin?: string | Record<string, string>;
  dependencies?: Record<string, string>;
}

const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as Manifest;

/** The folder of package `name` as Node finds it from `fromDir` (through node_modules, links followed). */
export function installedPackageDir(name: string, fromDir: string): string {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (existsSync(path.join(candidate, "package.json"))) return realpathSync(candidate);
    if (path.dirname(dir) === dir) throw new Error(`${name} is not installed where ${fromDir} can find it`);
  }
}

/** The package at `packageDir` and every package its `dependencies` pull in, each once, as folders. */
export function runtimeClosure(packageDir: string): string[] {
  const found = new Map<string, string>();
  const visit = (dir: string) => {
    const manifest = readManifest(dir);
    if (found.has(manifest.name)) return;
    found.set(manifest.name, dir);
    for (const dependency of Object.keys(manifest.dependencies ?? {})) visit(installedPackageDir(dependency, dir));
  };
  visit(realpathSync(packageDir));
  return [...found.values()];
}

interface PackReport {
  name: string;
  filename: string;
  files: Array<{ path: string }>;
}

function pack(dirs: string[], destination: string, dryRun = false): PackReport[] {
  const args = ["pack", "--json", "--ignore-scripts", "--pack-destination", destination, ...(dryRun ? ["--dry-run"] : []), ...dirs];
  return JSON.parse(execFileSync("npm", args, { cwd: destination, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })) as PackReport[];
}

export interface Consumer {
  dir: string;
  /** File names of the tarballs installed, the package under test first. */
  tarballs: string[];
  /** Type-checks and compiles `source` as main.ts; returns the compiler diagnostics. */
  compile(source: string): string[];
  /** Runs the compiled main.js with `env` added to the environment; resolves to its stdout. */
  run(env: Record<string, string>): Promise<string>;
  remove(): void;
}

/** Packs the package at `packageDir` (by default the one under test) with its dependencies and installs them into a new project. */
export function installPacked(packageDir = process.cwd()): Consumer {
  const dir = mkdtempSync(path.join(tmpdir(), "client-consumer-"));
  const reports = pack(runtimeClosure(packageDir), dir);
  const tarballs = reports.map((report) => report.filename);
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", ...tarballs.map((file) => `./${file}`)], { cwd: dir, stdio: "pipe" });
  // Node's own types, for `process` in the program under test.
  mkdirSync(path.join(dir, "node_modules", "@types"), { recursive: true });
  symlinkSync(installedPackageDir("@types/node", packageDir), path.join(dir, "node_modules", "@types", "node"), "dir");
  return {
    dir,
    tarballs,
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

/** Lists what the tarball of the package at `packageDir` would contain. */
export function packedFiles(packageDir = process.cwd()): string[] {
  const [report] = pack([realpathSync(packageDir)], tmpdir(), true);
  return (report?.files ?? []).map((file) => file.path).sort();
}

function entryPoints(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (typeof value !== "object" || value === null) return [];
  return Object.values(value).flatMap(entryPoints);
}

/** The relative module specifiers a JavaScript or declaration file imports, as the compiler reads them. */
function relativeImports(source: string): string[] {
  return ts
    .preProcessFile(source, true, true)
    .importedFiles.map((file) => file.fileName)
    .filter((specifier) => specifier.startsWith("./") || specifier.startsWith("../"));
}

/**
 * The files a package's `exports`, `main`, `types` and `bin` name, and every file those reach by
 * relative import, as paths inside the package; plus its package.json, README.md and LICENSE (npm
 * packs these two whenever they exist). A file that reaches outside the package (e.g. into a
 * sibling's folder) throws.
 */
export function filesReachedFromExports(packageDir = process.cwd()): string[] {
  const root = realpathSync(packageDir);
  const manifest = readManifest(root);
  const reached = new Set(["package.json", ...["README.md", "LICENSE"].filter((file) => existsSync(path.join(root, file)))]);
  const pending = [...entryPoints(manifest.exports), ...entryPoints(manifest.bin), ...entryPoints(manifest.main), ...entryPoints(manifest.types)];
  while (pending.length > 0) {
    const file = path.resolve(root, pending.pop()!);
    const inside = path.relative(root, file).split(path.sep).join("/");
    if (inside.startsWith("../") || path.isAbsolute(inside)) throw new Error(`${manifest.name} reaches outside its package: ${file}`);
    if (reached.has(inside)) continue;
    reached.add(inside);
    const declarations = file.endsWith(".d.ts");
    for (const specifier of relativeImports(readFileSync(file, "utf8"))) {
      const target = declarations ? specifier.replace(/\.js$/, ".d.ts") : specifier;
      pending.push(path.relative(root, path.resolve(path.dirname(file), target)));
    }
  }
  return [...reached].sort();
}

export const installedPackages = (consumer: Consumer): string[] => readdirSync(path.join(consumer.dir, "node_modules", "@api-contracts"));
