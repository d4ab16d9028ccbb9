// Checks every client package runs the same way: drift of the generated file and the README example.
import { execFile, execFileSync } from "node:child_process";
import { existsSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { bundlePath, freshTypes, generatedFile, generateTypes } from "../generate.js";
import { compile, firstTsBlock } from "./typescript.js";

/** The text of `file` (an absolute path) as committed at HEAD, or undefined outside git or when it is not committed. */
function committed(file: string): string | undefined {
  const dir = path.dirname(file);
  try {
    const top = execFileSync("git", ["rev-parse", "--show-toplevel"], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const name = path.relative(realpathSync(top), realpathSync(file)).split(path.sep).join("/");
    return execFileSync("git", ["show", `HEAD:${name}`], { cwd: top, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], maxBuffer: 64 << 20 });
  } catch {
    return undefined;
  }
}

export interface Drift {
  stale: boolean;
  reason?: string;
}

/**
 * Whether the generated types of `api` in the package at `packageDir` are what the generator makes
 * of the bundle, both in the working tree and as committed: a build always refreshes the working
 * copy, so only the committed pair shows a bundle change committed without its types.
 */
export async function generatedDrift(api: string, packageDir = process.cwd()): Promise<Drift> {
  const file = path.join(packageDir, generatedFile(api));
  const regenerate = `run \`npm run generate\` in ${packageDir}`;
  if (!existsSync(file)) return { stale: true, reason: `${generatedFile(api)} does not exist; ${regenerate}` };
  if (readFileSync(file, "utf8") !== (await freshTypes(api, packageDir))) {
    return { stale: true, reason: `${generatedFile(api)} differs from a fresh generation of the bundle; ${regenerate}` };
  }
  const bundleAtHead = committed(bundlePath(api, packageDir));
  const typesAtHead = committed(file);
  if (bundleAtHead === undefined) return { stale: false };
  if (typesAtHead === undefined) return { stale: true, reason: `${generatedFile(api)} is not committed` };
  const name = (JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8")) as { name: string }).name;
  if (typesAtHead !== (await generateTypes(api, JSON.parse(bundleAtHead), name))) {
    return { stale: true, reason: `committed ${generatedFile(api)} differs from a generation of the committed bundle; ${regenerate} and commit it` };
  }
  return { stale: false };
}

/**
 * Type-checks the README's first ```ts block inside the package (so the package name resolves to
 * its build), then runs it with the given environment; fetches to `liveOrigin` go to `localUrl`.
 */
export async function runReadmeExample(liveOrigin: string, localUrl: string, env: Record<string, string>, packageDir = process.cwd()) {
  const source = firstTsBlock(readFileSync(path.join(packageDir, "README.md"), "utf8"));
  const file = path.join(packageDir, ".readme-example.ts");
  writeFileSync(file, source);
  try {
    const diagnostics = compile([file]);
    const stdout = diagnostics.length
      ? ""
      : (
          await promisify(execFile)(process.execPath, ["--import", "tsx", "--import", "@api-contracts/dev-tools/testing/redirect-fetch", file], {
            cwd: packageDir,
            env: { ...process.env, ...env, REDIRECT_FROM: liveOrigin, REDIRECT_TO: localUrl },
            encoding: "utf8",
          })
        ).stdout;
    return { diagnostics, stdout };
  } finally {
    rmSync(file, { force: true });
  }
}
