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

/** The first ```ts block in the section of a Markdown text that starts with the heading `## <heading>`. */
export function tsBlockUnder(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no "## ${heading}" section found`);
  const end = markdown.indexOf("\n## ", start + 1);
  return firstTsBlock(markdown.slice(start, end < 0 ? undefined : end));
}
