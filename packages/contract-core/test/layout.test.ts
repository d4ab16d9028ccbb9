// What the contract says reads apart from how servers behave: no source outside src/server imports
// one inside it, nothing the `./contract` entry reaches imports a Node built-in (the docs console
// runs that entry in a browser), and the concept folders stand in one order, each importing only
// from those before it, so that no two of them import each other.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const src = fileURLToPath(new URL("../src/", import.meta.url));
const server = path.join(src, "server") + path.sep;
const sources = readdirSync(src, { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".ts"))
  .map((file) => path.join(src, file));

/** The package's own `imports` (`#form`), as a browser or a bundler takes them: their `default`, as the source file it is built from. */
const ownImports = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { imports?: Record<string, { default: string }> }).imports ?? {};
const browserSource = (specifier: string) => path.join(src, ownImports[specifier]!.default.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts"));

/** What a source imports or re-exports: a relative module (or one of the package's `#` imports) as the source file it names, any other as written. */
function importsOf(file: string): string[] {
  return ts
    .preProcessFile(readFileSync(file, "utf8"), true, true)
    .importedFiles.map(({ fileName }) =>
      fileName.startsWith(".") ? path.resolve(path.dirname(file), fileName).replace(/\.js$/, ".ts") : fileName.startsWith("#") ? browserSource(fileName) : fileName,
    );
}

/** The concept folders, each importing only from itself and those before it (and from `generated/`, which imports none). */
const FOLDER_ORDER = ["wire", "document", "webhooks", "validation", "wording", "judgement", "registry", "formats", "server"];

describe("the layout of the sources", () => {
  it("holds the concept folders to one order: a folder imports only from itself and the folders before it", () => {
    const folderOf = (file: string) => path.relative(src, file).split(path.sep)[0]!;
    const folders = new Set(sources.map(folderOf).filter((folder) => !folder.endsWith(".ts") && folder !== "generated"));
    expect([...folders].sort()).toEqual([...FOLDER_ORDER].sort());
    const backwards = sources
      .filter((file) => FOLDER_ORDER.includes(folderOf(file)))
      .flatMap((file) =>
        importsOf(file)
          .filter((imported) => imported.startsWith(src) && FOLDER_ORDER.includes(folderOf(imported)))
          .filter((imported) => FOLDER_ORDER.indexOf(folderOf(imported)) > FOLDER_ORDER.indexOf(folderOf(file)))
          .map((imported) => `${path.relative(src, file)} imports ${path.relative(src, imported)}`),
      );
    expect(backwards).toEqual([]);
  });

  it("keeps the server machinery in src/server, which nothing outside it imports", () => {
    expect(sources.filter((file) => file.startsWith(server)).length).toBeGreaterThan(2);
    const crossings = sources
      .filter((file) => !file.startsWith(server))
      .flatMap((file) => importsOf(file).filter((imported) => imported.startsWith(server)).map((imported) => `${path.relative(src, file)} imports ${path.relative(src, imported)}`));
    expect(crossings).toEqual([]);
  });

  it("lets a browser run the ./contract entry: nothing it reaches imports a Node built-in", () => {
    const reached = new Set([path.join(src, "contract.ts")]);
    const builtIns: string[] = [];
    // A Set iterates over what is added while it is iterated: every file the entry reaches is visited.
    for (const file of reached) {
      for (const imported of importsOf(file)) {
        if (imported.startsWith(src)) reached.add(imported);
        else if (imported.startsWith("node:")) builtIns.push(`${path.relative(src, file)} imports ${imported}`);
      }
    }
    expect(reached.size).toBeGreaterThan(10);
    expect(builtIns).toEqual([]);
  });
});
