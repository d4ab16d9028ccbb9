// How much an entry of a package weighs in an application's bundle: everything `export *` of it
// pulls in, bundled by esbuild for browsers and minified, then gzipped. `export *` keeps every
// export, so nothing is left out by tree-shaking: the worst case of any import of the entry.
import { gzipSync } from "node:zlib";
import { expect, it } from "vitest";

export interface EntryBundle {
  /** Bytes of the minified bundle gzipped at level 9. */
  gzipped: number;
  /** The files bundled, as paths relative to the working directory. */
  inputs: string[];
}

/** The bundle of entry `specifier` (a package name or subpath) as resolved from `resolveDir`. */
export async function bundleEntry(specifier: string, resolveDir: string): Promise<EntryBundle> {
  const { build } = await import("esbuild");
  const { outputFiles, metafile } = await build({
    stdin: { contents: `export * from ${JSON.stringify(specifier)};`, resolveDir },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  return { gzipped: gzipSync(outputFiles[0]!.contents, { level: 9 }).length, inputs: Object.keys(metafile.inputs) };
}

/** Bytes as the READMEs quote them: `4.0 kB` (1 kB = 1000 bytes, as npm and bundlers print). */
export const kilobytes = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

/**
 * What a main entry must never bundle: webhook verification lives on the `./webhooks` entries, the
 * opt-in middleware (retry, fail-open) on the `./middleware` entries.
 */
const OPT_IN_CODE = /\/(webhooks|middleware)\.js$|fast-sha256|standardwebhooks/;

/** Most bytes a client's main entry may weigh bundled whole: 4 kB. */
const MAIN_ENTRY_BUDGET = 4000;

/**
 * Registers the size test of a package's main entry: bundled whole it stays within
 * {@link MAIN_ENTRY_BUDGET} bytes gzipped and holds no webhook or middleware code. The sizes
 * measured, the `./middleware` and `./webhooks` entries' apart, are printed.
 */
export function mainEntrySizeTest(packageName: string, resolveDir: string): void {
  it(`${packageName} bundled whole (esbuild --bundle --minify, platform browser, gzip -9) is at most ${MAIN_ENTRY_BUDGET} bytes, without webhook or middleware code`, async () => {
    const main = await bundleEntry(packageName, resolveDir);
    const apart = await Promise.all(["middleware", "webhooks"].map(async (entry) => `${packageName}/${entry} apart: ${kilobytes((await bundleEntry(`${packageName}/${entry}`, resolveDir)).gzipped)}`));
    console.log(`${packageName}: ${main.gzipped} bytes (${kilobytes(main.gzipped)}); ${apart.join("; ")}`);
    expect(main.inputs.filter((file) => OPT_IN_CODE.test(file))).toEqual([]);
    expect(main.gzipped).toBeLessThanOrEqual(MAIN_ENTRY_BUDGET);
  }, 60_000);
}
