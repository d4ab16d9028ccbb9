// Uses packages the way an application developer does: from their packed tarballs, installed into
// a fresh project outside this repository with `npm install`, then compiled and run from there.
// Installing needs no network: every package the tarballs pull in is packed from the folder this
// checkout already has (the version the lockfile resolved), and a registry on 127.0.0.1 (the
// repository's `npm run registry`, given by the caller) serves exactly those to npm, which starts
// from an empty cache.
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import ts from "typescript";

const run = promisify(execFile);

interface Manifest {
  name: string;
  main?: string;
  types?: string;
  exports?: unknown;
  bin?: string | Record<string, string>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as Manifest;

/** The folder of package `name` as Node finds it from `fromDir` (through node_modules, links followed). */
function installedPackageDir(name: string, fromDir: string): string {
  const found = findInstalled(name, fromDir);
  if (!found) throw new Error(`${name} is not installed where ${fromDir} can find it`);
  return found;
}

function findInstalled(name: string, fromDir: string): string | undefined {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (existsSync(path.join(candidate, "package.json"))) return realpathSync(candidate);
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * The packages at `packageDirs` and every package their `dependencies` pull in, as folders, each
 * once: two versions of one name are two folders. Optional dependencies count where they are
 * installed (a platform's binary), and so do peer dependencies npm would install.
 */
export function runtimeClosure(packageDirs: string | string[]): string[] {
  const found = new Set<string>();
  const visit = (dir: string) => {
    if (found.has(dir)) return;
    found.add(dir);
    const manifest = readManifest(dir);
    const required = { ...manifest.dependencies };
    for (const peer of Object.keys(manifest.peerDependencies ?? {})) if (!manifest.peerDependenciesMeta?.[peer]?.optional) required[peer] = "";
    for (const dependency of Object.keys(required)) visit(installedPackageDir(dependency, dir));
    for (const dependency of Object.keys(manifest.optionalDependencies ?? {})) {
      const optional = findInstalled(dependency, dir);
      if (optional) visit(optional);
    }
  };
  for (const dir of [packageDirs].flat()) visit(realpathSync(dir));
  return [...found];
}

/** What `npm pack --json` reports of one tarball. */
export interface PackReport {
  name: string;
  version: string;
  filename: string;
  /** Bytes of the tarball. */
  size: number;
  unpackedSize: number;
  files: Array<{ path: string }>;
}

/** How the installed project gets its packages: a registry on 127.0.0.1 that serves tarballs packed into a folder. */
export interface LocalRegistry {
  /** Packs the package folders into `destination`, ready to be served; resolves to npm pack's report of each, in order. */
  pack(dirs: string[], destination: string): Promise<PackReport[]>;
  /** Serves what `pack` put in `tarballDir`; no other name. */
  serve(tarballDir: string): Promise<{ url: string; close(): Promise<void> }>;
}

export interface Consumer {
  dir: string;
  /** npm pack's report of every tarball packed: the packages asked for first, then what they pull in. */
  packed: PackReport[];
  /** File names of the tarballs of the packages asked for, in the order given. */
  tarballs: string[];
  /** Writes a file of the project (a program, a tsconfig.json). */
  write(file: string, text: string): void;
  /** Runs a command in the project with `env` added; resolves to its output, rejects when it fails. */
  exec(command: string, args: string[], env?: Record<string, string>): Promise<{ stdout: string; stderr: string }>;
  /**
   * Starts a long-running command in the project (a server) and resolves once its output has
   * shown `ready` times a line matching `pattern`, with those lines' matches; `stop` ends it and
   * everything it started (its process group) and resolves to all it printed.
   */
  start(command: string, args: string[], pattern: RegExp, ready?: number): Promise<StartedCommand>;
  remove(): void;
}

export interface StartedCommand {
  /** The process started: with npx, npm's, which `kill $!` in a script stops. */
  pid: number;
  matches: RegExpExecArray[];
  /** What it printed so far, stdout and stderr apart. */
  output(): { stdout: string; stderr: string };
  stop(): Promise<{ stdout: string; stderr: string }>;
}

export interface InstallOptions {
  /** The registry the project installs from (the repository's `npm run registry`). */
  registry: LocalRegistry;
  /** More folders to pack and install under another name, as an npm alias does: `{ "typescript-7": dir }`. */
  aliases?: Record<string, string>;
  /** The project's `overrides`, as a package's README asks its users to add them. */
  overrides?: Record<string, string>;
}

/**
 * Packs the packages at `packageDirs` and everything they pull in, serves them from the given
 * local registry, and installs them into a new project with
 * `npm install ./<tarball>...` as a user would: the tarballs of the packages asked for, every
 * other package from the registry.
 */
export async function installPacked(packageDirs: string | string[], options: InstallOptions): Promise<Consumer> {
  const dir = mkdtempSync(path.join(tmpdir(), "api-contracts-consumer-"));
  const tarballDir = path.join(dir, ".tarballs");
  mkdirSync(tarballDir);
  const wanted = [packageDirs].flat().map((folder) => realpathSync(folder));
  const aliased = Object.entries(options.aliases ?? {}).map(([alias, folder]) => [alias, realpathSync(folder)] as const);
  const closure = runtimeClosure([...wanted, ...aliased.map(([, folder]) => folder)]);
  const reports = await options.registry.pack(closure, tarballDir);
  const tarballFor = (folder: string) => reports[closure.indexOf(folder)]!.filename;
  const registry = await options.registry.serve(tarballDir);
  try {
    const dependencies = Object.fromEntries(aliased.map(([alias, folder]) => [alias, `file:.tarballs/${tarballFor(folder)}`]));
    writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ name: "consumer", private: true, type: "module", dependencies, ...(options.overrides ? { overrides: options.overrides } : {}) }, null, 2)}\n`);
    writeFileSync(path.join(dir, ".npmrc"), `registry=${registry.url}/\ncache=${path.join(dir, ".npm-cache")}\naudit=false\nfund=false\nupdate-notifier=false\n`);
    await run("npm", ["install", "--ignore-scripts", ...wanted.map((folder) => `./.tarballs/${tarballFor(folder)}`)], { cwd: dir, env: npmEnv(), maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  } finally {
    await registry.close();
  }
  return {
    dir,
    packed: reports,
    tarballs: wanted.map(tarballFor),
    write: (file, text) => writeFileSync(path.join(dir, file), text),
    exec: (command, args, env = {}) => run(command, args, { cwd: dir, env: { ...npmEnv(), ...env }, encoding: "utf8", maxBuffer: 16 * 1024 * 1024 }),
    start: (command, args, pattern, ready = 1) => startCommand(dir, command, args, pattern, ready),
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts a long-running command in `dir`, as {@link Consumer.start} does in the project. */
export function startCommand(dir: string, command: string, args: string[], pattern: RegExp, ready = 1): Promise<StartedCommand> {
  const child = spawn(command, args, { cwd: dir, env: npmEnv(), detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const stop = async () => {
    // The whole group, even once the command itself has ended: what it started may still run.
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      // The group has ended.
    }
    await exited;
    return { stdout, stderr };
  };
  return new Promise((resolve, reject) => {
    const matches: RegExpExecArray[] = [];
    const failed = () => reject(new Error(`${command} ${args.join(" ")} ended before it was ready:\n${stdout}${stderr}`));
    child.once("close", failed);
    child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
    let partial = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const lines = (partial + chunk.toString()).split("\n");
      partial = lines.pop()!;
      for (const line of lines) {
        const match = pattern.exec(line);
        if (match && matches.length < ready) matches.push(match);
      }
      if (matches.length === ready) {
        child.off("close", failed);
        resolve({ pid: child.pid!, matches, output: () => ({ stdout, stderr }), stop });
      }
    });
  });
}

/** This process's environment without the npm_* settings `npm run` hands down (its registry, its cache). */
export function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
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

