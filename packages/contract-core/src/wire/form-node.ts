// `form.ts` for Node: `qs` (and the ten modules it pulls in, about a tenth of a mock's start) is
// loaded on the first form body, not with the decision.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
let parse: typeof import("qs").parse | undefined;

/** Nesting members by brackets, prototypes allowed as plain members, at most 1000 parameters. */
export function readForm(text: string): unknown {
  parse ??= (require("qs") as typeof import("qs")).parse;
  return parse(text, { allowPrototypes: true, parameterLimit: 1000, arrayLimit: 100, depth: 32 });
}
