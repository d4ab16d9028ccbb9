// The form reading of body-parser's `urlencoded({ extended: true })`, for a browser (the docs
// console) and any bundler: `qs` imported with the module. Node takes `form-node.ts` instead
// (package.json `imports`, `#form`), which loads `qs` on the first form body only.
import { parse } from "qs";
import { FORM_OPTIONS } from "./form-options.js";

/** A form body as the service reads it ({@link FORM_OPTIONS}). */
export function readForm(text: string): unknown {
  return parse(text, FORM_OPTIONS);
}
