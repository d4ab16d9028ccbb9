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

/** What a main entry must never bundle: webhook verification lives on the `./webhooks` entries. */
const WEBHOOK_CODE = /\/webhooks\.js$|fast-sha256|standardwebhooks/;

/**
 * Registers the size test of a package's main entry: bundled whole it stays within `budget` bytes
 * gzipped and holds no webhook code. The sizes measured, the `./webhooks` entry's apart when the
 * package has one, are printed.
 */
export function mainEntrySizeTest(packageName: string, resolveDir: string, budget: number): void {
  it(`${packageName} bundled whole (esbuild --bundle --minify, platform browser, gzip -9) is at most ${budget} bytes, without webhook code`, async () => {
    const main = await bundleEntry(packageName, resolveDir);
    const webhooks = await bundleEntry(`${packageName}/webhooks`, resolveDir);
    console.log(`${packageName}: ${main.gzipped} bytes (${kilobytes(main.gzipped)}); ${packageName}/webhooks apart: ${webhooks.gzipped} bytes (${kilobytes(webhooks.gzipped)})`);
    expect(main.inputs.filter((file) => WEBHOOK_CODE.test(file))).toEqual([]);
    expect(main.gzipped).toBeLessThanOrEqual(budget);
  }, 60_000);
}
