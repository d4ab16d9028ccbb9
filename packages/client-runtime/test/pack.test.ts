import { expect, it } from "vitest";
import { filesReachedFromExports, packedFiles } from "../src/testing/index.js";

it("the tarball holds exactly the files its exports and bin reach, none from another package's folder", () => {
  const files = packedFiles();
  expect(files).toEqual(filesReachedFromExports());
  expect(files).toEqual(expect.arrayContaining(["bin/client-types.js", "dist/index.js", "dist/index.d.ts", "dist/request.js", "dist/testing/index.js"]));
});

it("a file of the package that imports from a sibling's folder is refused", () => {
  // This package's own test folder plays the sibling: its files import from ../src.
  expect(() => filesReachedFromExports(new URL("./fixtures/escaping", import.meta.url).pathname)).toThrow(/reaches outside its package/);
});
