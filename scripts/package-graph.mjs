// Draws the graph of workspace packages from their package.json files and from every import in
// their code, and finds what breaks the repository's layering: cycles, imports of a sibling that
// package.json does not declare, paths that leave a package's folder, and `import()` of a value
// no tool can see.
//   node scripts/package-graph.mjs [ROOT]   prints the graph and the problems; exit 1 when there are any
import { readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, "..");

const CODE = /\.(?:[cm]?[jt]s|tsx)$/;
const SKIP_DIRS = new Set(["node_modules", "dist", "generated", ".turbo", "coverage", ".tmp"]);
const DEPENDENCY_FIELDS = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"];

/** The workspace folders named by the root package.json (`dir/*` and plain folders). */
export function workspacePackages(root = repoRoot) {
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  const dirs = manifest.workspaces.flatMap((pattern) => {
    if (!pattern.endsWith("/*")) return [path.join(root, pattern)];
    const parent = path.join(root, pattern.slice(0, -2));
    return readdirSync(parent).map((name) => path.join(parent, name));
  });
  return dirs
    .filter((dir) => existsSync(path.join(dir, "package.json")))
    .map((dir) => {
      const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
      const declared = new Set(DEPENDENCY_FIELDS.flatMap((field) => Object.keys(pkg[field] ?? {})));
      return { name: pkg.name, dir, declared, scripts: pkg.scripts ?? {} };
    });
}

function codeFiles(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP_DIRS.has(entry.name) || entry.name.startsWith(".")) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...codeFiles(full));
    else if (CODE.test(entry.name) && !entry.name.endsWith(".d.ts")) found.push(full);
  }
  return found;
}

function isImportMetaUrl(node) {
  return ts.isPropertyAccessExpression(node) && node.name.text === "url" && ts.isMetaProperty(node.expression);
}

/**
 * Every module or path a file names: static and dynamic imports, re-exports, `require`,
 * `require.resolve`, `import.meta.resolve` and `new URL(..., import.meta.url)`. A dynamic import or
 * require whose argument is not a string literal is returned as `{ hidden: true }`.
 */
export function referencesIn(file, text = readFileSync(file, "utf8")) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const literal = (node) => {
    if (!node) return undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
    // `@scope/name/${file}` still names its package: the part before the first substitution does.
    if (ts.isTemplateExpression(node)) {
      const head = node.head.text;
      const name = packageOf(head);
      if (name && head.startsWith(`${name}/`)) return head;
    }
    return undefined;
  };
  const at = (node) => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      found.push({ specifier: literal(node.moduleSpecifier), kind: "import", line: at(node) });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      found.push({ specifier: literal(node.moduleReference.expression), kind: "import", line: at(node) });
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const first = node.arguments[0];
      const dynamicImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const requireCall = ts.isIdentifier(callee) && callee.text === "require";
      const resolveCall =
        ts.isPropertyAccessExpression(callee) &&
        callee.name.text === "resolve" &&
        ((ts.isIdentifier(callee.expression) && callee.expression.text === "require") || ts.isMetaProperty(callee.expression));
      if (dynamicImport || requireCall || resolveCall) {
        const specifier = literal(first);
        if (specifier === undefined) found.push({ hidden: true, kind: dynamicImport ? "import()" : "require", line: at(node) });
        else found.push({ specifier, kind: dynamicImport ? "import()" : "require", line: at(node) });
      }
    } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "URL") {
      const [first, base] = node.arguments ?? [];
      const specifier = literal(first);
      if (specifier !== undefined && base && isImportMetaUrl(base)) found.push({ specifier, kind: "url", line: at(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((ref) => ref.hidden || ref.specifier !== undefined);
}

/** `@scope/name/sub` -> `@scope/name`; `name/sub` -> `name`; relative and `node:` specifiers -> undefined. */
export function packageOf(specifier) {
  if (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("node:") || specifier.includes(":")) return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

const inside = (dir, target) => {
  const relative = path.relative(dir, target);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
};

/** The graph and every problem in it. */
export function analyse(root = repoRoot) {
  const packages = workspacePackages(root);
  const names = new Set(packages.map((p) => p.name));
  const edges = new Map(packages.map((p) => [p.name, new Set()]));
  const problems = [];
  for (const pkg of packages) {
    for (const dep of pkg.declared) if (names.has(dep) && dep !== pkg.name) edges.get(pkg.name).add(dep);
    for (const [script, command] of Object.entries(pkg.scripts)) {
      if (/(^|[\s"'=])\.\.\//.test(command)) problems.push(`${pkg.name}: script "${script}" reaches outside the package: ${command}`);
    }
    for (const file of codeFiles(pkg.dir)) {
      const where = path.relative(root, file);
      for (const ref of referencesIn(file)) {
        if (ref.hidden) {
          problems.push(`${where}:${ref.line}: ${ref.kind} of a computed specifier hides a dependency`);
          continue;
        }
        if (ref.specifier.startsWith(".")) {
          const target = path.resolve(path.dirname(file), ref.specifier);
          if (!inside(pkg.dir, target)) problems.push(`${where}:${ref.line}: "${ref.specifier}" reaches outside ${pkg.name}`);
          continue;
        }
        const dep = packageOf(ref.specifier);
        if (!dep || !names.has(dep) || dep === pkg.name) continue;
        edges.get(pkg.name).add(dep);
        if (!pkg.declared.has(dep)) problems.push(`${where}:${ref.line}: imports ${dep}, which ${pkg.name}'s package.json does not declare`);
      }
    }
  }
  const cycles = findCycles(edges);
  for (const cycle of cycles) problems.push(`cycle: ${cycle.join(" -> ")}`);
  return { packages: packages.map((p) => p.name), edges, cycles, problems };
}

/** One cycle per strongly connected component of more than one package (Tarjan). */
export function findCycles(edges) {
  let index = 0;
  const indices = new Map();
  const lowlinks = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  const strongConnect = (node) => {
    indices.set(node, index);
    lowlinks.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!indices.has(next)) {
        strongConnect(next);
        lowlinks.set(node, Math.min(lowlinks.get(node), lowlinks.get(next)));
      } else if (onStack.has(next)) {
        lowlinks.set(node, Math.min(lowlinks.get(node), indices.get(next)));
      }
    }
    if (lowlinks.get(node) !== indices.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) cycles.push(cycleThrough(component, edges));
  };
  for (const node of edges.keys()) if (!indices.has(node)) strongConnect(node);
  return cycles;
}

/** A concrete path around a strongly connected component, for a readable message. */
function cycleThrough(component, edges) {
  const members = new Set(component);
  const start = [...component].sort()[0];
  const pathTaken = [start];
  const seen = new Set([start]);
  let node = start;
  for (;;) {
    const next = [...(edges.get(node) ?? [])].filter((n) => members.has(n)).sort();
    const back = next.find((n) => n === start);
    if (back && pathTaken.length > 1) return [...pathTaken, start];
    const step = next.find((n) => !seen.has(n)) ?? back;
    if (!step) return [...pathTaken, start];
    if (step === start) return [...pathTaken, start];
    pathTaken.push(step);
    seen.add(step);
    node = step;
  }
}

if (process.argv[1] && statSync(process.argv[1]).isFile() && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const { edges, problems } = analyse(process.argv[2] ? path.resolve(process.argv[2]) : repoRoot);
  for (const [name, deps] of edges) console.log(`${name} -> ${[...deps].sort().join(", ") || "(nothing)"}`);
  for (const problem of problems) console.error(problem);
  process.exit(problems.length ? 1 : 0);
}
