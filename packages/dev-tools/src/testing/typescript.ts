// Type-checks or compiles TypeScript files with the project's compiler settings.
import ts from "typescript";

const compilerOptions: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
  types: ["node"],
  strict: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: true,
  verbatimModuleSyntax: true,
};

/** Returns the diagnostics of `files` as readable lines; `outDir` also emits JavaScript. */
export function compile(files: string[], options: { outDir?: string; typeRoots?: string[] } = {}): string[] {
  const program = ts.createProgram(files, {
    ...compilerOptions,
    ...(options.typeRoots ? { typeRoots: options.typeRoots } : {}),
    ...(options.outDir ? { outDir: options.outDir } : { noEmit: true }),
  });
  const emitted = program.emit();
  return [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].map((d) => {
    const where = d.file && d.start !== undefined ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : "";
    return where + ts.flattenDiagnosticMessageText(d.messageText, "\n");
  });
}

/** The first ```ts block of a Markdown text. */
export function firstTsBlock(markdown: string): string {
  const block = /```ts\n([\s\S]*?)```/.exec(markdown)?.[1];
  if (!block) throw new Error("no ```ts block found");
  return block;
}
