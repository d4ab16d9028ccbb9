import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const specDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

it("README: the usage example runs and lists the entitlements paths", () => {
  const readme = readFileSync(path.join(specDir, "README.md"), "utf8");
  const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(example).toBeDefined();
  // Written below the workspace's node_modules so that the package resolves as it would for a user.
  const file = path.join(mkdtempSync(path.join(specDir, "..", "node_modules", ".readme-")), "example.mjs");
  writeFileSync(file, example!);
  const output = execFileSync(process.execPath, [file], { encoding: "utf8" });
  rmSync(path.dirname(file), { recursive: true, force: true });
  expect(output).toContain("Entitlements API");
  expect(output).toContain("/v1/balances.check");
});
