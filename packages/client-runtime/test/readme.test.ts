import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { compile, firstTsBlock } from "@api-contracts/dev-tools/testing";

it("the README example type-checks beside a generated paths file", () => {
  const file = fileURLToPath(new URL("./support/readme-example.ts", import.meta.url));
  writeFileSync(file, firstTsBlock(readFileSync("README.md", "utf8")));
  try {
    expect(compile([file])).toEqual([]);
  } finally {
    rmSync(file, { force: true });
  }
});
