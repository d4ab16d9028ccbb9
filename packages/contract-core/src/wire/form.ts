// The form reading of body-parser's `urlencoded({ extended: true })`, for a browser (the docs
// console) and any bundler: `qs` imported with the module. Node takes `form-node.ts` instead
// (package.json `imports`, `#form`), which loads `qs` on the first form body only.
import { parse } from "qs";

/** Nesting members by brackets, prototypes allowed as plain members, at most 1000 parameters. */
export function readForm(text: string): unknown {
  return parse(text, { allowPrototypes: true, parameterLimit: 1000, arrayLimit: 100, depth: 32 });
}
