import { expect, it } from "vitest";
import { filesReachedFromExports } from "../src/testing/index.js";

it("a file of a package that imports from a sibling's folder is refused", () => {
  // The fixture plays a package whose file imports from a folder outside it (this package's src).
  expect(() => filesReachedFromExports(new URL("./fixtures/escaping", import.meta.url).pathname)).toThrow(/reaches outside its package/);
});

it("a package's files are followed from its exports through relative imports", () => {
  const files = filesReachedFromExports(new URL("..", import.meta.url).pathname);
  expect(files).toEqual(expect.arrayContaining(["package.json", "bin/client-types.js", "dist/generate.js", "dist/testing/index.js", "dist/testing/servers.js"]));
});
