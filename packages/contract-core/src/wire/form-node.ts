// `form.ts` for Node: `qs` (and the ten modules it pulls in, about a tenth of a mock's start) is
// loaded on the first form body, not with the decision.
import { createRequire } from "node:module";
import { FORM_OPTIONS } from "./form-options.js";

const require = createRequire(import.meta.url);
let parse: typeof import("qs").parse | undefined;

/** A form body as the service reads it ({@link FORM_OPTIONS}). */
export function readForm(text: string): unknown {
  parse ??= (require("qs") as typeof import("qs")).parse;
  return parse(text, FORM_OPTIONS);
}
