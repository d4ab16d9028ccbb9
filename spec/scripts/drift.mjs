// Decides whether a committed generated file is stale.
//
// After `turbo run build` the working tree always holds a fresh copy, so comparing against the
// working tree alone could never fail in CI. When the sources a file is generated from are
// unchanged since HEAD, the file is compared with its committed version instead; while the sources
// have uncommitted edits, the working-tree copy is what a developer is about to commit.
import { execFileSync } from "node:child_process";
import { readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// Paths are relative to the spec package; git reads them relative to its working directory.
const specDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function git(args) {
  return execFileSync("git", args, { cwd: specDir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
}

function insideGitCheckout() {
  try {
    return git(["rev-parse", "--is-inside-work-tree"]).trim() === "true" && git(["rev-parse", "HEAD"]).trim() !== "";
  } catch {
    return false;
  }
}

function sourcesUnchangedSinceHead(sources) {
  try {
    git(["diff", "--quiet", "HEAD", "--", ...sources]);
    return true;
  } catch {
    return false;
  }
}

function isTracked(file) {
  try {
    git(["ls-files", "--error-unmatch", "--", file]);
    return true;
  } catch {
    return false;
  }
}

/**
 * @param {{ file: string, fresh: string, sources: string[] }} target paths relative to spec/
 * @returns {{ stale: boolean, comparedWith: "HEAD" | "working tree", reason?: string }}
 */
export function checkDrift({ file, fresh, sources }) {
  if (insideGitCheckout() && sourcesUnchangedSinceHead(sources)) {
    if (!isTracked(file)) return { stale: true, comparedWith: "HEAD", reason: `${file} is not committed` };
    const committed = git(["show", `HEAD:./${file}`]);
    return committed === fresh
      ? { stale: false, comparedWith: "HEAD" }
      : { stale: true, comparedWith: "HEAD", reason: `committed ${file} differs from a fresh generation` };
  }
  const onDisk = path.join(specDir, file);
  if (!existsSync(onDisk)) return { stale: true, comparedWith: "working tree", reason: `${file} does not exist` };
  return readFileSync(onDisk, "utf8") === fresh
    ? { stale: false, comparedWith: "working tree" }
    : { stale: true, comparedWith: "working tree", reason: `${file} differs from a fresh generation` };
}
