// Every public package can be published as it stands: its tarball holds what its `exports` and
// `bin` name, and nothing outside its own folder; every entry loads with `import` and with
// `require()`; it carries the metadata a registry and its users need.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";
import { repoRoot, workspacePackages } from "../package-graph.mjs";

interface Manifest {
  name: string;
  private?: boolean;
  license?: string;
  repository?: { type?: string; url?: string; directory?: string };
  publishConfig?: { access?: string };
  engines?: { node?: string };
  exports?: Record<string, unknown>;
  bin?: Record<string, string> | string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  /** npm 11's review of dependencies' install scripts: `name` or `name@version`, allowed or denied. */
  allowScripts?: Record<string, boolean>;
}

const rootManifest = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as Manifest;

interface LockEntry {
  version?: string;
  resolved?: string;
  link?: boolean;
  engines?: { node?: string } | string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  hasInstallScript?: boolean;
}
const lock = JSON.parse(readFileSync(path.join(repoRoot, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> };

/** Where Node finds `name` from the lockfile location `from`: its own node_modules, then each parent's. */
function lockLocation(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dir.includes("node_modules/") ? dir.slice(0, dir.lastIndexOf("/node_modules/")) : "") {
    const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    const entry = lock.packages[candidate];
    if (entry) return entry.link && entry.resolved ? entry.resolved : candidate;
    if (!dir) return undefined;
  }
}

/** Every package (name@version and its engines.node) that installing the workspace at `location` brings, as the lockfile resolves it. */
function runtimeClosure(location: string): Array<{ id: string; node?: string }> {
  const seen = new Map<string, { id: string; node?: string }>();
  const visit = (at: string) => {
    if (seen.has(at)) return;
    const entry = lock.packages[at]!;
    const manifest = at.startsWith("node_modules/") || at.includes("/node_modules/") ? entry : (JSON.parse(readFileSync(path.join(repoRoot, at, "package.json"), "utf8")) as LockEntry);
    const engines = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    seen.set(at, { id: `${at.slice(at.lastIndexOf("node_modules/") + 13) || at}@${entry.version ?? "workspace"}`, ...(engines ? { node: engines } : {}) });
    const names = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies });
    for (const name of names) {
      const found = lockLocation(name, at);
      if (found) visit(found);
    }
  };
  visit(location);
  return [...seen.values()];
}
const rootLicense = readFileSync(path.join(repoRoot, "LICENSE"), "utf8");

/** Every file an `exports` map or `bin` names; patterns (`./*.json`) name their folder. */
function namedTargets(manifest: Manifest): string[] {
  const targets: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === "string") targets.push(value);
    else if (value && typeof value === "object") Object.values(value).forEach(collect);
  };
  collect(manifest.exports ?? {});
  collect(typeof manifest.bin === "string" ? { bin: manifest.bin } : (manifest.bin ?? {}));
  return targets.map((target) => path.posix.normalize(target));
}

const workspaces = workspacePackages(repoRoot).map((pkg: { dir: string }) => ({
  dir: pkg.dir,
  manifest: JSON.parse(readFileSync(path.join(pkg.dir, "package.json"), "utf8")) as Manifest,
}));
const publicPackages = workspaces.filter(({ manifest }: { manifest: Manifest }) => manifest.private !== true);
const privateNames = workspaces.filter(({ manifest }: { manifest: Manifest }) => manifest.private === true).map(({ manifest }: { manifest: Manifest }) => manifest.name);

describe("the workspaces", () => {
  it("keep what only this repository uses private: the dev tools, the conformance runner and the repository scripts", () => {
    expect(privateNames).toEqual(expect.arrayContaining(["@api-contracts/dev-tools", "@api-contracts/conformance", "@api-contracts/repo-tools"]));
  });

  it("name one Node range, the README's: the versions that load ES modules with require()", () => {
    expect(rootManifest.engines?.node).toBe("^20.19.0 || ^22.12.0 || >=24.0.0");
    const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
    expect(readme).toContain(`\`${rootManifest.engines?.node}\``);
  });

  it("review every install script of the lockfile in allowScripts, so that npm ci warns of none not yet reviewed", () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([at]) => at.slice(at.lastIndexOf("node_modules/") + "node_modules/".length));
    const reviewed = Object.keys(rootManifest.allowScripts ?? {}).map((key) => /^(@?[^@]+)/.exec(key)![1]!);
    expect(withScripts).toContain("esbuild");
    expect(withScripts.filter((name) => !reviewed.includes(name))).toEqual([]);
  });
});

// One npm process lists every package's tarball, and one node process per module system loads
// every entry of every package: a process per package and check cost most of this file's time.
const packedFiles = new Map(
  (
    JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts", ...publicPackages.flatMap(({ dir }: { dir: string }) => ["-w", path.relative(repoRoot, dir)])], {
        cwd: repoRoot,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
        maxBuffer: 64 * 1024 * 1024,
      }),
    ) as Array<{ name: string; files: Array<{ path: string }> }>
  ).map((report) => [report.name, report.files.map((file) => file.path)]),
);

const entriesOf = (manifest: Manifest) =>
  Object.keys(manifest.exports ?? {})
    .filter((subpath) => !subpath.includes("*"))
    .map((subpath) => manifest.name + subpath.slice(1));

/** Loads every entry of every public package with `import` or `require()`, from the repository root where the workspaces are linked; the first line of each failure. */
function loadFailures(kind: "import" | "require"): string {
  const entries = publicPackages.flatMap(({ manifest }: { manifest: Manifest }) => entriesOf(manifest));
  const load = kind === "import" ? `(name) => import(name, name.endsWith(".json") ? { with: { type: "json" } } : undefined)` : "async (name) => require(name)";
  const body = `const load = ${load};
    for (const name of ${JSON.stringify(entries)}) await load(name).catch((error) => { console.log(name + ": " + (error.code ?? "") + " " + error.message.split("\\n")[0]); process.exitCode = 1; });`;
  const args = kind === "import" ? ["--input-type=module", "-e", body] : ["--input-type=commonjs", "-e", `(async () => { ${body} })()`];
  try {
    execFileSync(process.execPath, ["--no-warnings", ...args], { cwd: repoRoot, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return "";
  } catch (error) {
    // Each failing entry prints a line; a process that failed otherwise (a syntax error) fails every package.
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    return stdout ? stdout : entries.map((entry) => `${entry}: ${stderr ?? String(error)}`).join("\n");
  }
}
const loadFailuresByKind = { import: loadFailures("import"), require: loadFailures("require") };

describe.each(publicPackages)("$manifest.name", ({ dir, manifest }: { dir: string; manifest: Manifest }) => {
  it("packs every file its exports and bin name, and nothing from outside its folder", () => {
    const files = packedFiles.get(manifest.name)!;
    expect(files.filter((file) => file.startsWith("..") || path.isAbsolute(file))).toEqual([]);
    for (const target of namedTargets(manifest)) {
      if (target.includes("*")) {
        const folder = target.slice(0, target.indexOf("*"));
        expect(files.some((file) => file.startsWith(folder)), `${target} matches a packed file`).toBe(true);
      } else {
        expect(existsSync(path.join(dir, target)), `${target} exists (is the package built?)`).toBe(true);
        expect(files, `${target} is packed`).toContain(target);
      }
    }
    expect(files).toContain("package.json");
    expect(files).toContain("README.md");
    expect(files).toContain("LICENSE");
  });

  it("carries the metadata a registry needs: the repository's license text, repository with its folder, public access, the one engines range", () => {
    expect(manifest.license).toBe("MIT");
    expect(readFileSync(path.join(dir, "LICENSE"), "utf8")).toBe(rootLicense);
    expect(manifest.repository).toEqual({ ...rootManifest.repository, directory: path.relative(repoRoot, dir).split(path.sep).join("/") });
    expect(manifest.publishConfig?.access).toBe("public");
    expect(manifest.engines?.node).toBe(rootManifest.engines?.node);
  });

  it("pulls in nothing, as the lockfile resolves it, whose engines refuse a Node of the range (npm would warn EBADENGINE)", () => {
    const lowest = ["20.19.0", "22.12.0", "24.0.0"];
    const refusing = runtimeClosure(path.relative(repoRoot, dir).split(path.sep).join("/"))
      .filter(({ node }) => node !== undefined && lowest.some((version) => !semver.satisfies(version, node)))
      .map(({ id, node }) => `${id} (engines.node ${node})`);
    expect(refusing).toEqual([]);
  });

  it("pulls in no developer tool, so any TypeScript, vitest or esbuild of the user's installs beside it (no peer to satisfy, no --legacy-peer-deps)", () => {
    const tools = ["typescript", "vitest", "esbuild", "openapi-typescript"];
    expect(Object.keys(manifest.peerDependencies ?? {}).filter((name) => tools.includes(name))).toEqual([]);
    const pulled = runtimeClosure(path.relative(repoRoot, dir).split(path.sep).join("/")).map(({ id }) => id);
    expect(pulled.filter((id) => tools.some((tool) => id.startsWith(`${tool}@`)))).toEqual([]);
  });

  it("needs no private workspace at run time", () => {
    const runtime = { ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies };
    expect(Object.keys(runtime).filter((name) => privateNames.includes(name))).toEqual([]);
  });

  it("every entry loads from an ES module and from CommonJS (require of an ES module: no top-level await)", () => {
    for (const kind of ["import", "require"] as const) {
      const failures = loadFailuresByKind[kind].split("\n").filter((line) => entriesOf(manifest).some((entry) => line.startsWith(`${entry}: `)));
      expect(failures, `${kind} of ${entriesOf(manifest).join(", ")}`).toEqual([]);
    }
  });
});
