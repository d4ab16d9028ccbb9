// How much an entry of a package weighs in an application's bundle: everything `export *` of it
// pulls in, bundled by esbuild for browsers and minified, then gzipped. `export *` keeps every
// export, so nothing is left out by tree-shaking: the worst case of any import of the entry.
import { gzipSync } from "node:zlib";

/** Gzipped bytes (level 9) of entry `specifier` bundled whole, resolved from `resolveDir`. */
export async function gzippedEntrySize(specifier: string, resolveDir: string): Promise<number> {
  const { build } = await import("esbuild");
  const { outputFiles } = await build({
    stdin: { contents: `export * from ${JSON.stringify(specifier)};`, resolveDir },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    write: false,
    logLevel: "silent",
  });
  return gzipSync(outputFiles[0]!.contents, { level: 9 }).length;
}

/** Bytes as the READMEs quote them: `4.0 kB` (1 kB = 1000 bytes, as npm and bundlers print). */
export const kilobytes = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
