import { expect, it } from "vitest";
import { filesReachedFromExports, packedFiles } from "@api-contracts/dev-tools/testing";

it("the tarball holds exactly the files its exports reach, none from another package's folder", () => {
  const files = packedFiles();
  expect(files).toEqual(filesReachedFromExports());
  expect(files).toEqual(expect.arrayContaining(["dist/index.js", "dist/index.d.ts", "dist/request.js"]));
});

it("the tarball holds no tooling: no generator, bench driver or test support", () => {
  expect(packedFiles().filter((file) => /generate|bench|testing|^bin\//.test(file))).toEqual([]);
});
