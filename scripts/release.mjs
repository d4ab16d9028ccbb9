#!/usr/bin/env node
// Versioning with changesets. A change to the published contract (what the spec package ships:
// its bundles, workflows and recorded requests) needs a changeset, and the breaking-change check
// decides how big it must be: a change that breaks a client built against the old bundles is a
// major, any other change at least a patch. The published packages move together (one `fixed`
// group in .changeset/config.json), as every one of them is generated from or judged by the spec.
//
//   node scripts/release.mjs --check       the changesets added since the base cover the contract change
//   node scripts/release.mjs --dry-run     versions every package, writes the changelogs and packs what
//                                          would be published, in a scratch copy: nothing is published
//                                          and the working tree is left as it was
//   node scripts/release.mjs               versions the packages in place (`changeset version`)
//
// The base is the merge base with `main` on another branch, and the commit before HEAD on `main`
// itself (a clone with one branch, as CI has): so on `main` the last merge is what is checked.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import parseChangeset from "@changesets/parse";
import { findBreakingChanges, git } from "./breaking-changes.mjs";
import { workspacePackages } from "./package-graph.mjs";

const BUMPS = ["none", "patch", "minor", "major"];
const tryGit = (args, cwd) => {
  try {
    return git(args, cwd);
  } catch {
    return undefined;
  }
};
const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));

/** The commit the change under review starts from, and why that one; undefined without history. */
export function diffBase(root) {
  const head = tryGit(["rev-parse", "HEAD"], root);
  if (!head) return undefined;
  for (const main of ["main", "origin/main"]) {
    const tip = tryGit(["rev-parse", "--verify", "-q", `${main}^{commit}`], root);
    if (tip && tip !== head) return { ref: git(["merge-base", "HEAD", main], root), why: `the merge base with ${main}` };
  }
  const previous = tryGit(["rev-parse", "--verify", "-q", "HEAD~1^{commit}"], root);
  return previous ? { ref: previous, why: "the commit before HEAD" } : undefined;
}

const publicPackages = (root) => workspacePackages(root).filter((pkg) => pkg.published);

/**
 * What changed in the published contract since `base`: the spec package's shipped files (its
 * `files`, but not the version or changelog a release writes), and what the breaking-change check
 * finds between the bundles at `base` and those in the working tree.
 */
export function contractChange(root, base) {
  const spec = readJson(path.join(root, "spec/package.json"));
  const shipped = spec.files.map((entry) => `spec/${entry}`);
  const files = [
    ...git(["diff", "--name-only", base, "--", ...shipped], root).split("\n"),
    ...git(["ls-files", "--others", "--exclude-standard", "--", ...shipped], root).split("\n"),
  ].filter(Boolean);
  const findings = [];
  for (const file of readdirSync(path.join(root, "spec/dist")).filter((name) => name.endsWith(".openapi.json"))) {
    const before = tryGit(["show", `${base}:spec/dist/${file}`], root);
    if (before === undefined) continue;
    const api = file.replace(".openapi.json", "");
    for (const { where, change } of findBreakingChanges(JSON.parse(before), readJson(path.join(root, "spec/dist", file)))) findings.push(`${api}: ${where}: ${change}`);
  }
  return { files, findings, required: files.length === 0 ? "none" : findings.length > 0 ? "major" : "patch" };
}

/** The changesets in .changeset/ that `base` did not have: `{ file, releases: [{ name, type }], summary }`. */
export function addedChangesets(root, base) {
  const folder = path.join(root, ".changeset");
  if (!existsSync(folder)) return [];
  const before = new Set((tryGit(["ls-tree", "--name-only", base, ".changeset/"], root) ?? "").split("\n").map((file) => path.basename(file)));
  return readdirSync(folder)
    .filter((file) => file.endsWith(".md") && file !== "README.md" && !before.has(file))
    .map((file) => ({ file: `.changeset/${file}`, ...parseChangeset(readFileSync(path.join(folder, file), "utf8")) }));
}

/**
 * Whether the changesets added since the base cover the contract change: one names a published
 * package (they move together) with at least the bump the breaking-change check requires.
 */
export function checkChangesets(root) {
  const base = diffBase(root);
  if (!base) return { base, skipped: "no commit before HEAD to compare with (a shallow clone?)", problems: [] };
  const change = contractChange(root, base.ref);
  const names = new Set(publicPackages(root).map(({ manifest }) => manifest.name));
  const changesets = addedChangesets(root, base.ref);
  const declared = changesets.flatMap((changeset) => changeset.releases.filter((release) => names.has(release.name)).map((release) => release.type)).reduce((top, type) => (BUMPS.indexOf(type) > BUMPS.indexOf(top) ? type : top), "none");
  const problems = [];
  if (change.required !== "none" && BUMPS.indexOf(declared) < BUMPS.indexOf(change.required)) {
    const needed = change.required === "major" ? `a major (npm run breaking -- --base ${base.ref.slice(0, 12)} finds ${change.findings.length} breaking change${change.findings.length === 1 ? "" : "s"})` : "at least a patch";
    problems.push(
      `${change.files.length} published spec file${change.files.length === 1 ? "" : "s"} changed since ${base.why} (${base.ref.slice(0, 12)}), and ${declared === "none" ? "no changeset added since names a published package" : `the changesets added since ask only for a ${declared}`}: it needs ${needed}. Add one with npx @changesets/cli.`,
    );
  }
  return { base, change, changesets, declared, problems };
}

/** The working tree as git sees it (tracked and untracked, not ignored), plus the built packages, copied to `target`. */
export function copyTree(root, target) {
  // node_modules is linked, not copied (in a copy of a copy it is a link, which `node_modules/` does not ignore).
  const files = git(["ls-files", "-co", "--exclude-standard"], root).split("\n").filter((file) => file && file !== "node_modules");
  for (const file of files) if (existsSync(path.join(root, file))) cpSync(path.join(root, file), path.join(target, file), { recursive: true });
  for (const { dir } of publicPackages(root)) {
    const dist = path.join(dir, "dist");
    if (existsSync(dist)) cpSync(dist, path.join(target, path.relative(root, dist)), { recursive: true });
  }
  symlinkSync(path.join(root, "node_modules"), path.join(target, "node_modules"), "dir");
}

function release(root, { dryRun, out = console.log }) {
  const check = checkChangesets(root);
  if (check.skipped) out(`changesets: ${check.skipped}; nothing checked`);
  const workDir = dryRun ? mkdtempSync(path.join(tmpdir(), "api-contracts-release-")) : root;
  const tree = dryRun ? path.join(workDir, "tree") : root;
  if (dryRun) copyTree(root, tree);
  if (check.problems.length > 0) {
    if (!dryRun) {
      for (const problem of check.problems) out(`changesets: ${problem}`);
      return 1;
    }
    // The dry run proposes what the contract change needs instead of failing.
    const proposed = check.change.required === "major" ? "major" : "minor";
    const summary = check.change.findings.length > 0 ? `Breaking contract change:\n\n${check.change.findings.map((finding) => `- ${finding}`).join("\n")}` : "Contract change.";
    writeFileSync(path.join(tree, ".changeset/contract-change.md"), `---\n"@api-contracts/spec": ${proposed}\n---\n\n${summary}\n`);
    out(`changesets: ${check.problems[0]}`);
    out(`proposing a ${proposed} for @api-contracts/spec (.changeset/contract-change.md in the dry run)`);
  }
  const before = new Map(publicPackages(tree).map(({ manifest }) => [manifest.name, manifest.version]));
  execFileSync(process.execPath, [path.join(root, "node_modules/@changesets/cli/bin.js"), "version"], { cwd: tree, stdio: ["ignore", "pipe", "pipe"] });
  const after = publicPackages(tree);
  out("versions:");
  for (const { manifest } of after) out(`  ${manifest.name} ${before.get(manifest.name)} -> ${manifest.version}${before.get(manifest.name) === manifest.version ? " (unchanged)" : ""}`);
  const specLog = path.join(tree, "spec/CHANGELOG.md");
  if (existsSync(specLog)) out(`spec/CHANGELOG.md:\n${readFileSync(specLog, "utf8").split(/\n(?=## )/)[1]?.trim() ?? ""}`);
  if (!dryRun) {
    out("Review the versions and changelogs, run npm install (the lockfile names the new versions), commit, then npx @changesets/cli publish.");
    return 0;
  }
  const tarballs = path.join(workDir, "tarballs");
  mkdirSync(tarballs);
  const packed = JSON.parse(execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", tarballs, ...after.map(({ dir }) => dir)], { cwd: tree, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], maxBuffer: 64 * 1024 * 1024 }));
  out(`would publish (packed in ${tarballs}):`);
  for (const report of packed) out(`  ${report.filename} ${(report.size / 1000).toFixed(1)} kB`);
  rmSync(tree, { recursive: true, force: true });
  out("dry run: nothing was published and the working tree is unchanged");
  return 0;
}

function main() {
  const { values } = parseArgs({ options: { "dry-run": { type: "boolean" }, check: { type: "boolean" }, root: { type: "string" } } });
  const root = path.resolve(values.root ?? git(["rev-parse", "--show-toplevel"], process.cwd()));
  if (values.check) {
    const result = checkChangesets(root);
    if (result.skipped) console.log(`changesets: ${result.skipped}; nothing checked`);
    else console.log(`changesets: contract change since ${result.base.why} (${result.base.ref.slice(0, 12)}): ${result.change.files.length} files, needs ${result.change.required}; changesets added: ${result.changesets.length}, asking for ${result.declared}`);
    for (const problem of result.problems) console.log(`changesets: ${problem}`);
    process.exit(result.problems.length > 0 ? 1 : 0);
  }
  process.exit(release(root, { dryRun: values["dry-run"] === true }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
