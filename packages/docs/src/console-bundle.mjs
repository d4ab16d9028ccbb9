// The console beside every reference page: one script (console/, bundled with esbuild) shared by the pages.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";

const consoleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "console");

/**
 * The console's script, minified, with esbuild's metafile (to measure what each input weighs).
 * @returns {{ code: string, metafile: import("esbuild").Metafile }}
 */
export function bundleConsole() {
  const result = buildSync({
    entryPoints: [path.join(consoleDir, "main.ts")],
    absWorkingDir: path.dirname(consoleDir),
    bundle: true,
    minify: true,
    format: "iife",
    platform: "browser",
    target: ["chrome111", "firefox111", "safari16.4"],
    loader: { ".css": "text" },
    // The console sends JSON bodies only: contract-core's form reading (qs) is never reached in it.
    alias: { qs: path.join(consoleDir, "forms.ts") },
    // The bundled packages' license notices stay with their code.
    legalComments: "eof",
    metafile: true,
    write: false,
    logLevel: "silent",
  });
  return { code: new TextDecoder().decode(result.outputFiles[0]?.contents), metafile: result.metafile };
}
