// Every command a README gives must run our package and no other. `npx api-mock` runs the local
// bin where @api-contracts/local-stack is installed, and elsewhere whatever the registry calls
// `api-mock` (today an unrelated API Blueprint mock, which npx installs without asking where there is
// no terminal). So a README names the package npx resolves: a scoped name, or a pinned version.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot, workspacePackages } from "../package-graph.mjs";

const readmes = execFileSync("git", ["ls-files", "*README.md"], { cwd: repoRoot, encoding: "utf8" }).split("\n").filter(Boolean);

/** The commands a Markdown text gives: the lines of its fenced blocks and its inline code spans, with their line numbers. */
function codeOf(markdown: string): Array<{ line: number; code: string }> {
  const code: Array<{ line: number; code: string }> = [];
  let fenced = false;
  // The prose with each fenced line blanked, so that an inline span may run over a line break.
  const prose = markdown
    .split("\n")
    .map((text, index) => {
      if (/^\s*(```|~~~)/.test(text)) fenced = !fenced;
      else if (fenced) code.push({ line: index + 1, code: text });
      return fenced || /^\s*(```|~~~)/.test(text) ? "" : text;
    })
    .join("\n");
  for (const span of prose.matchAll(/(`+)([^`]+?)\1/g)) code.push({ line: prose.slice(0, span.index).split("\n").length, code: span[2]!.replace(/\s*\n\s*/g, " ") });
  return code.sort((a, b) => a.line - b.line);
}

/** npx (and `npm exec`) options that take a value: the next word is that value, not the command. */
const TAKES_VALUE = new Set(["-p", "--package", "-c", "--call", "-w", "--workspace", "--registry", "--cache", "--prefix", "--userconfig"]);

/**
 * The packages each `npx`/`npm exec` in `code` has npm resolve: those named by `--package`, else its
 * first word (the command, which npm looks up as a package name when it finds no local bin).
 */
function packagesResolved(code: string): string[][] {
  const found: string[][] = [];
  for (const match of code.matchAll(/(?:^|[\s;&|(])(?:npx|npm\s+exec|npm\s+x)\s+([^;&|)#]*)/g)) {
    const words = match[1]!.trim().split(/\s+/);
    const named: string[] = [];
    let command: string | undefined;
    for (let index = 0; index < words.length && command === undefined; index++) {
      const word = words[index]!;
      const [option, inline] = word.split(/=(.*)/s);
      if (option === "--") command = words[index + 1];
      else if (option === "-p" || option === "--package") named.push(inline ?? words[++index]!);
      else if (TAKES_VALUE.has(option!)) index += inline === undefined ? 1 : 0;
      else if (!word.startsWith("-")) command = word;
    }
    found.push(named.length > 0 ? named : command ? [command] : []);
  }
  return found;
}

/** A package npm cannot mistake: scoped (`@scope/name`), or a name pinned to a version (`pnpm@9.15.9`). */
const unmistakable = (spec: string) => /^@[^/\s]+\/\S+$/.test(spec) || /^[^@\s]+@\d\S*$/.test(spec) || /^[./]/.test(spec);

describe("README commands name the package they run", () => {
  it("finds the package in each form, and refuses a bare name", () => {
    expect(packagesResolved("npx api-mock --faults f.json")).toEqual([["api-mock"]]);
    expect(packagesResolved("npx --yes --package @api-contracts/local-stack api-mock --help")).toEqual([["@api-contracts/local-stack"]]);
    expect(packagesResolved("npm exec --package=@changesets/cli -- changeset")).toEqual([["@changesets/cli"]]);
    expect(packagesResolved("A=1 npx -y pnpm@9.15.9 install && npx @api-contracts/contract-tests init")).toEqual([["pnpm@9.15.9"], ["@api-contracts/contract-tests"]]);
    expect(["api-mock", "contract-test", "redocly", "pnpm"].filter(unmistakable)).toEqual([]);
    expect(["@api-contracts/local-stack", "@redocly/cli", "pnpm@9.15.9", "bun@1.3.14"].every(unmistakable)).toBe(true);
  });

  it.each(readmes)("%s runs no npx <bare name>", (readme) => {
    const bare = codeOf(readFileSync(path.join(repoRoot, readme), "utf8")).flatMap(({ line, code }) =>
      packagesResolved(code)
        .flat()
        .filter((spec) => !unmistakable(spec))
        .map((spec) => `line ${line}: ${spec} (in \`${code.trim()}\`)`),
    );
    expect(bare, "name the package: npx @api-contracts/<package>, or npx --package <package> <command>").toEqual([]);
  });

  it.each(
    workspacePackages(repoRoot)
      .map((pkg: { dir: string }) => ({ dir: pkg.dir, manifest: JSON.parse(readFileSync(path.join(pkg.dir, "package.json"), "utf8")) as { name: string; private?: boolean; bin?: Record<string, string> } }))
      .filter(({ manifest }: { manifest: { private?: boolean; bin?: object } }) => manifest.bin && !manifest.private)
      .map(({ dir, manifest }: { dir: string; manifest: { name: string } }) => [manifest.name, dir]),
  )("%s's README says how to get its command, by the package's name", (name, dir) => {
    const commands = codeOf(readFileSync(path.join(dir, "README.md"), "utf8")).map(({ code }) => code);
    expect(commands.some((code) => packagesResolved(code).flat().includes(name))).toBe(true);
  });
});
