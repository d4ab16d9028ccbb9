// Checks both client packages run the same way: drift of the generated file and the README example.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { readFileSync, writeFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { checkDrift } from "../../../../scripts/drift.mjs";
import { generatedTarget, generateTypes } from "../../scripts/generate.mjs";
import { compile, firstTsBlock } from "./typescript.js";

const packagesDir = fileURLToPath(new URL("../../../", import.meta.url));

/** Compares a fresh generation with the committed (or, while the spec is being edited, the working-tree) file. */
export async function generatedDrift(api: "entitlements" | "webdata") {
  const target = generatedTarget(api);
  return checkDrift({ file: target.file, fresh: await generateTypes(api), sources: target.sources });
}

/**
 * Type-checks the README's first ```ts block inside the package (so the package name resolves to
 * its build), then runs it with the given environment; fetches to `liveOrigin` go to `localUrl`.
 */
export async function runReadmeExample(packageName: string, liveOrigin: string, localUrl: string, env: Record<string, string>) {
  const dir = path.join(packagesDir, packageName);
  const source = firstTsBlock(readFileSync(path.join(dir, "README.md"), "utf8"));
  const file = path.join(dir, ".readme-example.ts");
  writeFileSync(file, source);
  try {
    const diagnostics = compile([file]);
    const stdout = diagnostics.length
      ? ""
      : (
          await promisify(execFile)(process.execPath, ["--import", "tsx", "--import", fileURLToPath(new URL("./redirect-fetch.mjs", import.meta.url)), file], {
          cwd: dir,
          env: { ...process.env, ...env, REDIRECT_FROM: liveOrigin, REDIRECT_TO: localUrl },
          encoding: "utf8",
          })
        ).stdout;
    return { diagnostics, stdout };
  } finally {
    rmSync(file, { force: true });
  }
}
