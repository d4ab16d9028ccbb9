// How body-parser's `urlencoded({ extended: true })` reads a form with `qs`: members nested by
// brackets, prototypes allowed as plain members, at most 1000 parameters. One rule for both readers
// (`form.ts`, `form-node.ts`), which differ only in when they load `qs`.
export const FORM_OPTIONS = { allowPrototypes: true, parameterLimit: 1000, arrayLimit: 100, depth: 32 } as const;
