// Checks every client package runs the same way: drift of the generated file and the README example.
import { execFile, execFileSync, spawn } from "node:child_process";
import { connect, createServer } from "node:net";
import { existsSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { bundlePath, freshTypes, generatedFile, generateTypes } from "../generate.js";
import { compile, firstTsBlock, tsBlockUnder } from "./typescript.js";

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
 * Type-checks the README's first ```ts block, or the one in section `## <heading>`, inside the
 * package (so the package name resolves to its build), then runs it with the given environment;
 * fetches to `liveOrigin` go to `localUrl`.
 */
export async function runReadmeExample(liveOrigin: string, localUrl: string, env: Record<string, string>, heading?: string, packageDir = process.cwd()) {
  const markdown = readFileSync(path.join(packageDir, "README.md"), "utf8");
  const source = heading ? tsBlockUnder(markdown, heading) : firstTsBlock(markdown);
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

/** A port nobody listens on at the moment it is asked for. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function accepting(port: number, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the README's server did not listen on port ${port} in time`);
}

/**
 * Type-checks the server example in the README section `## <heading>` inside the package, runs it
 * with `PORT` set to a free port and the given environment, waits until it listens, lets `exercise`
 * call it at `http://127.0.0.1:<port>`, then stops it. Resolves to the compiler's diagnostics, what
 * `exercise` returned and what the server printed.
 */
export async function runReadmeServer<T>(heading: string, env: Record<string, string>, exercise: (url: string) => Promise<T>, packageDir = process.cwd()): Promise<{ diagnostics: string[]; result?: T; stdout: string }> {
  const file = path.join(packageDir, ".readme-server.ts");
  writeFileSync(file, tsBlockUnder(readFileSync(path.join(packageDir, "README.md"), "utf8"), heading));
  try {
    const diagnostics = compile([file]);
    if (diagnostics.length > 0) return { diagnostics, stdout: "" };
    const port = await freePort();
    const child = spawn(process.execPath, ["--import", "tsx", file], { cwd: packageDir, env: { ...process.env, ...env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    // "close" comes after the output streams are drained, so nothing printed is lost.
    const exited = new Promise((resolve) => child.once("close", resolve));
    try {
      await accepting(port, Date.now() + 30_000);
      const result = await exercise(`http://127.0.0.1:${port}`);
      return { diagnostics, result, stdout };
    } catch (error) {
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${stderr}`);
    } finally {
      child.kill();
      await exited;
    }
  } finally {
    rmSync(file, { force: true });
  }
}
