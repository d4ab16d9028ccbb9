// What a checkout of Firecrawl's apps/api is changed in before `pnpm install`, so that it installs
// and starts here: the native module (a napi-rs workspace package whose Rust crates cannot be
// fetched) is replaced by this package's stand-in (src/firecrawl-rs), and the optional
// FoundationDB client is not built (its build needs FoundationDB's C library; the queue runs on
// PostgreSQL). Nothing else of Firecrawl's code or lockfile changes.
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/** The stand-in's files, copied into the checkout's native/ folder. */
export const STAND_IN_DIR = path.join(path.dirname(new URL(import.meta.url).pathname), "firecrawl-rs");
const STAND_IN_FILES = ["index.mjs", "index.d.ts"];

/** What prepareFirecrawlCheckout changes, for the README and its test. */
export const CHECKOUT_CHANGES = {
  /** native/package.json: the stand-in's entry and types; no napi build on install. */
  nativeManifest: { main: "index.mjs", types: "index.d.ts", droppedMembers: ["browser"], droppedScripts: ["install"] },
  /** pnpm-workspace.yaml `allowBuilds`: packages whose install script is not run. */
  buildsTurnedOff: ["foundationdb"],
};

/** The pnpm version the checkout names (`packageManager`), e.g. "pnpm@11.4.0". */
export function pnpmOf(apiDir) {
  const named = JSON.parse(readFileSync(path.join(apiDir, "package.json"), "utf8")).packageManager;
  if (typeof named !== "string" || !/^pnpm@\d+\.\d+\.\d+/.test(named)) throw new Error(`${apiDir}/package.json names no pnpm version in packageManager`);
  return named.split("+")[0];
}

/** Applies CHECKOUT_CHANGES to Firecrawl's apps/api folder (idempotent). */
export function prepareFirecrawlCheckout(apiDir) {
  const native = path.join(apiDir, "native");
  for (const file of STAND_IN_FILES) copyFileSync(path.join(STAND_IN_DIR, file), path.join(native, file));
  const manifestFile = path.join(native, "package.json");
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
  const { main, types, droppedMembers, droppedScripts } = CHECKOUT_CHANGES.nativeManifest;
  Object.assign(manifest, { main, types });
  for (const member of droppedMembers) delete manifest[member];
  for (const script of droppedScripts) delete manifest.scripts?.[script];
  writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);

  const workspaceFile = path.join(apiDir, "pnpm-workspace.yaml");
  let workspace = readFileSync(workspaceFile, "utf8");
  for (const name of CHECKOUT_CHANGES.buildsTurnedOff) {
    const line = new RegExp(`^(\\s+"?${name}"?:\\s*)true\\s*$`, "m");
    if (!line.test(workspace) && !new RegExp(`^\\s+"?${name}"?:\\s*false\\s*$`, "m").test(workspace)) {
      throw new Error(`${workspaceFile} lists no allowBuilds entry for ${name}`);
    }
    workspace = workspace.replace(line, "$1false");
  }
  writeFileSync(workspaceFile, workspace);
}
