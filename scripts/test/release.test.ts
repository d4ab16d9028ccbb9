// Versioning: a change to the published contract needs a changeset as big as the breaking-change
// check says, and the release dry run proposes it, versions and packs without touching the tree.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkChangesets, copyTree } from "../release.mjs";
import { repoRoot } from "../package-graph.mjs";

it("this repository: the changesets added since the base cover every change to the published contract", (context) => {
  const result = checkChangesets(repoRoot);
  if (result.skipped) return context.skip(result.skipped);
  expect(result.problems).toEqual([]);
});

describe("a clone with a branch that changes the contract", () => {
  let scratch: string;
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=release test", "-c", "user.email=release@test.invalid", ...args], { cwd: scratch, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const bundle = () => path.join(scratch, "spec/dist/entitlements.openapi.json");
  const changeset = (name: string, bump: string) => writeFileSync(path.join(scratch, ".changeset", `${name}.md`), `---\n"@api-contracts/spec": ${bump}\n---\n\n${name}\n`);
  const release = (...args: string[]) => execFileSync(process.execPath, [path.join(scratch, "scripts/release.mjs"), ...args], { cwd: scratch, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

  beforeAll(() => {
    scratch = mkdtempSync(path.join(tmpdir(), "api-contracts-release-test-"));
    copyTree(repoRoot, scratch);
    git("init", "-q", "-b", "main");
    writeFileSync(path.join(scratch, ".git/info/exclude"), "node_modules\n");
    git("add", "-A");
    git("commit", "-qm", "released");
  }, 120_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("a breaking change (an operation removed) needs a major: none or a minor is refused, a major passes", () => {
    git("checkout", "-qb", "remove-finalize");
    const document = JSON.parse(readFileSync(bundle(), "utf8")) as { paths: Record<string, unknown> };
    delete document.paths["/v1/balances.finalize"];
    writeFileSync(bundle(), JSON.stringify(document, null, 2));
    git("commit", "-qam", "remove finalize");
    const none = checkChangesets(scratch);
    expect(none.change?.findings).toEqual(["entitlements: POST /v1/balances.finalize: operation was removed"]);
    expect(none.problems.join("\n")).toMatch(/no changeset added since names a published package: it needs a major/);
    changeset("only-minor", "minor");
    expect(checkChangesets(scratch).problems.join("\n")).toMatch(/ask only for a minor: it needs a major/);
    changeset("only-minor", "major");
    expect(checkChangesets(scratch).problems).toEqual([]);
    rmSync(path.join(scratch, ".changeset/only-minor.md"));
  });

  it("npm run release -- --dry-run proposes the major, versions every package, writes the changelog and packs, leaving the tree as it was", () => {
    const printed = release("--dry-run");
    expect(printed).toContain("proposing a major for @api-contracts/spec");
    expect(printed).toContain("@api-contracts/spec 0.1.0 -> 1.0.0");
    expect(printed).toContain("@api-contracts/entitlements-client 0.1.0 -> 1.0.0");
    expect(printed).toMatch(/### Major Changes[\s\S]*POST \/v1\/balances.finalize: operation was removed/);
    expect(printed).toMatch(/api-contracts-spec-1\.0\.0\.tgz/);
    expect(printed).toContain("nothing was published");
    expect(git("status", "--porcelain")).toBe("");
    rmSync(path.dirname(/packed in (\S+)\):/.exec(printed)![1]!), { recursive: true, force: true });
  }, 120_000);

  it("a change that breaks nothing (a longer description) needs at least a patch", () => {
    git("checkout", "-q", "main");
    git("checkout", "-qb", "describe-more");
    const document = JSON.parse(readFileSync(bundle(), "utf8")) as { info: { description: string } };
    document.info.description += " More words.";
    writeFileSync(bundle(), JSON.stringify(document, null, 2));
    git("commit", "-qam", "describe more");
    const result = checkChangesets(scratch);
    expect(result.change?.findings).toEqual([]);
    expect(result.problems.join("\n")).toMatch(/it needs at least a patch/);
    changeset("describe", "patch");
    expect(checkChangesets(scratch).problems).toEqual([]);
  });

  it("on main itself (a clone with one branch) the last commit is what is checked", () => {
    git("checkout", "-q", "main");
    git("merge", "-q", "--no-ff", "remove-finalize", "-m", "merge");
    const result = checkChangesets(scratch);
    expect(result.base?.why).toBe("the commit before HEAD");
    expect(result.problems.join("\n")).toMatch(/needs a major/);
  });
});
