// The operationIds of a bundle of the spec package, for the tests of this package.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** The operationIds of `@api-contracts/spec/<service>.json`, in the bundle's order. */
export function operationIdsOf(service) {
  const bundle = JSON.parse(readFileSync(require.resolve(`@api-contracts/spec/${service}.json`), "utf8"));
  return Object.values(bundle.paths).flatMap((item) => Object.values(item).map((op) => op.operationId).filter(Boolean));
}
