// Draws the graph of workspace packages from their package.json files and from every import in
// their code, and the graph of files from every import between them, and finds what breaks the
// repository's layering: a package in no layer or depending on a layer it must not, dev-tools
// anywhere but devDependencies, cycles between packages, import circles between files, imports of a
// sibling that package.json does not declare, paths that leave a package's folder, and `import()`
// of a value no tool can see.
//   node scripts/package-graph.mjs [ROOT]   prints the layers, the graph and the problems; exit 1 when there are any
import { readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, "..");

/**
 * Every workspace package sits in one layer. A package of a layer with `never` depends on no package
 * of those layers, in any dependency field or import, nor installs one through its own dependencies;
 * a `devOnly` layer is only ever a devDependency of a published package. A `*` in a name stands for
 * any run of characters but `/`.
 */
export const LAYERS = [
  { name: "contract", packages: ["@api-contracts/spec", "@api-contracts/webhook-signatures", "@api-contracts/contract-core"], role: "what the contract says and how it is judged" },
  { name: "clients", packages: ["@api-contracts/client-runtime", "@api-contracts/*-client"], role: "what applications call the APIs with", never: ["tools"] },
  { name: "servers", packages: ["@api-contracts/mock-server", "@api-contracts/reference-server"], role: "what answers as the APIs", never: ["tools"] },
  { name: "tools", packages: ["@api-contracts/contract-tests", "@api-contracts/contract-proxy"], role: "what judges an implementation: the kit and the proxy" },
  { name: "composition", packages: ["@api-contracts/docs", "@api-contracts/local-stack"], role: "what users read and start" },
  { name: "build support", packages: ["@api-contracts/dev-tools"], role: "this repository's generators, benches and test support", devOnly: true },
  { name: "repository", packages: ["@api-contracts/conformance", "@api-contracts/repo-tools"], role: "runners that live only here, never published" },
];

/** A layer's rules in words, as the check prints them and the README shows them. */
export function layerRule(layer) {
  return [layer.never && `never depends on ${layer.never.join(", ")}`, layer.devOnly && "only a devDependency of a published package"].filter(Boolean).join("; ");
}

const CODE = /\.(?:[cm]?[jt]s|tsx)$/;
const SKIP_DIRS = new Set(["node_modules", "dist", "generated", ".turbo", "coverage", ".tmp"]);
const RUNTIME_FIELDS = ["dependencies", "peerDependencies", "optionalDependencies"];
const DEPENDENCY_FIELDS = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"];
// What loads a module. `require.resolve`, `import.meta.resolve` and `new URL(..., import.meta.url)`
// name a file without running it, so they close no import circle.
const LOADING_KINDS = new Set(["import", "import()", "require"]);

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
      const fields = Object.fromEntries(DEPENDENCY_FIELDS.map((field) => [field, new Set(Object.keys(pkg[field] ?? {}))]));
      const declared = new Set(DEPENDENCY_FIELDS.flatMap((field) => [...fields[field]]));
      return { name: pkg.name, dir, manifest: pkg, declared, fields, published: pkg.private !== true, scripts: pkg.scripts ?? {} };
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

/**
 * Every module or path a file names: static and dynamic imports, re-exports, `import("x").T` types,
 * `require`, `require.resolve`, `import.meta.resolve` and `new URL(..., import.meta.url)`. A dynamic
 * import or require whose argument is not a string literal is returned as `{ hidden: true }`.
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
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      found.push({ specifier: literal(node.argument.literal), kind: "import", line: at(node) });
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const dynamicImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const requireCall = ts.isIdentifier(callee) && callee.text === "require";
      const resolveCall =
        ts.isPropertyAccessExpression(callee) &&
        callee.name.text === "resolve" &&
        ((ts.isIdentifier(callee.expression) && callee.expression.text === "require") || ts.isMetaProperty(callee.expression));
      if (dynamicImport || requireCall || resolveCall) {
        const kind = dynamicImport ? "import()" : requireCall ? "require" : "resolve";
        const specifier = literal(node.arguments[0]);
        if (specifier === undefined) found.push({ hidden: true, kind: kind === "resolve" ? "require" : kind, line: at(node) });
        else found.push({ specifier, kind, line: at(node) });
      }
    } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "URL") {
      const [first, base] = node.arguments ?? [];
      const specifier = literal(first);
      const importMetaUrl = base && ts.isPropertyAccessExpression(base) && base.name.text === "url" && ts.isMetaProperty(base.expression);
      if (specifier !== undefined && importMetaUrl) found.push({ specifier, kind: "url", line: at(node) });
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

// As TypeScript reads a relative specifier: `./x.js` names the source `./x.ts` when there is one.
const SOURCES_OF = { ".js": [".ts", ".tsx"], ".mjs": [".mts"], ".cjs": [".cts"], ".jsx": [".tsx"] };
const EXTENSIONS = [".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs"];

/** The file among `files` that the relative `specifier` in `from` loads, or undefined. */
export function resolveRelative(from, specifier, files) {
  const target = path.resolve(path.dirname(from), specifier);
  const extension = path.extname(target);
  const candidates = [
    ...(SOURCES_OF[extension] ?? []).map((source) => target.slice(0, -extension.length) + source),
    target,
    ...EXTENSIONS.map((ext) => target + ext),
    ...EXTENSIONS.map((ext) => path.join(target, `index${ext}`)),
  ];
  return candidates.find((candidate) => files.has(candidate));
}

const globPattern = (glob) => new RegExp(`^${glob.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[^/]*")}$`);

/** The layer of `layers` a package belongs to, or undefined. */
export function layerOf(name, layers = LAYERS) {
  return layers.find((layer) => layer.packages.some((glob) => globPattern(glob).test(name)));
}

const listed = (sites, most = 3) => (sites.length > most ? `${sites.slice(0, most).join(", ")} and ${sites.length - most} more` : sites.join(", "));

/** What breaks the layers: packages in no layer, dev-only packages shipped, and dependencies on a forbidden layer. */
function layerProblems(packages, importSites, layers) {
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
  const runtimeDependencies = (name) => RUNTIME_FIELDS.flatMap((field) => [...(byName.get(name)?.fields[field] ?? [])]).filter((dep) => byName.has(dep));
  const problems = [];
  for (const pkg of packages) {
    const layer = layerOf(pkg.name, layers);
    if (!layer) {
      problems.push(`layers: ${pkg.name} is in no layer; add it to LAYERS in scripts/package-graph.mjs`);
      continue;
    }
    for (const field of pkg.published ? RUNTIME_FIELDS : []) {
      for (const dep of pkg.fields[field]) {
        if (layerOf(dep, layers)?.devOnly) problems.push(`layers: ${pkg.name} names ${dep} in ${field}; ${dep} (${layerOf(dep, layers).name}) is only ever a devDependency of a published package`);
      }
    }
    if (!layer.never) continue;
    const forbidden = (name) => layer.never.includes(layerOf(name, layers)?.name);
    const how = new Map();
    for (const field of DEPENDENCY_FIELDS) for (const dep of pkg.fields[field]) how.set(dep, [...(how.get(dep) ?? []), field]);
    for (const [dep, sites] of importSites.get(pkg.name)) how.set(dep, [...(how.get(dep) ?? []), `imported at ${listed(sites)}`]);
    for (const [dep, reasons] of how) {
      if (forbidden(dep)) problems.push(`layers: ${pkg.name} (${layer.name}) depends on ${dep} (${layerOf(dep, layers).name}): ${reasons.join("; ")}`);
    }
    // What installing the package brings: its runtime dependencies and theirs, one path to each.
    const cameThrough = new Map(runtimeDependencies(pkg.name).map((dep) => [dep, [pkg.name]]));
    for (const [dep, trail] of cameThrough) {
      if (forbidden(dep) && trail.length > 1) problems.push(`layers: ${pkg.name} (${layer.name}) installs ${dep} (${layerOf(dep, layers).name}) through ${[...trail, dep].join(" -> ")}`);
      for (const next of runtimeDependencies(dep)) if (!cameThrough.has(next) && next !== pkg.name) cameThrough.set(next, [...trail, dep]);
    }
  }
  return problems;
}

/** The graphs and every problem in them; `layers` defaults to the repository's. */
export function analyse(root = repoRoot, layers = LAYERS) {
  const packages = workspacePackages(root);
  const names = new Set(packages.map((p) => p.name));
  const edges = new Map(packages.map((p) => [p.name, new Set()]));
  const importSites = new Map(packages.map((p) => [p.name, new Map()]));
  const problems = [];
  const filesOf = new Map(packages.map((pkg) => [pkg, codeFiles(pkg.dir)]));
  const files = new Set([...filesOf.values()].flat());
  // Type-only imports are edges too: erased at run time, they still tie the two files' meanings
  // together, so neither can be read, moved or published without the other.
  const fileEdges = new Map([...files].map((file) => [path.relative(root, file), new Map()]));
  for (const pkg of packages) {
    for (const dep of pkg.declared) if (names.has(dep) && dep !== pkg.name) edges.get(pkg.name).add(dep);
    for (const [script, command] of Object.entries(pkg.scripts)) {
      if (/(^|[\s"'=])\.\.\//.test(command)) problems.push(`${pkg.name}: script "${script}" reaches outside the package: ${command}`);
    }
    for (const file of filesOf.get(pkg)) {
      const where = path.relative(root, file);
      for (const ref of referencesIn(file)) {
        if (ref.hidden) {
          problems.push(`${where}:${ref.line}: ${ref.kind} of a computed specifier hides a dependency`);
          continue;
        }
        if (ref.specifier.startsWith(".")) {
          const target = path.resolve(path.dirname(file), ref.specifier);
          if (!inside(pkg.dir, target)) problems.push(`${where}:${ref.line}: "${ref.specifier}" reaches outside ${pkg.name}`);
          const loaded = LOADING_KINDS.has(ref.kind) && resolveRelative(file, ref.specifier, files);
          if (loaded && !fileEdges.get(where).has(path.relative(root, loaded))) fileEdges.get(where).set(path.relative(root, loaded), ref.line);
          continue;
        }
        const dep = packageOf(ref.specifier);
        if (!dep || !names.has(dep) || dep === pkg.name) continue;
        edges.get(pkg.name).add(dep);
        const sites = importSites.get(pkg.name);
        sites.set(dep, [...(sites.get(dep) ?? []), `${path.relative(pkg.dir, file)}:${ref.line}`]);
        if (!pkg.declared.has(dep)) problems.push(`${where}:${ref.line}: imports ${dep}, which ${pkg.name}'s package.json does not declare`);
      }
    }
  }
  problems.push(...layerProblems(packages, importSites, layers));
  const cycles = findCycles(edges);
  for (const cycle of cycles) problems.push(`cycle: ${cycle.join(" -> ")}`);
  const circles = findCycles(fileEdges);
  for (const circle of circles) {
    const steps = circle.map((file, i) => (i < circle.length - 1 ? `${file}:${fileEdges.get(file).get(circle[i + 1])}` : file));
    problems.push(`import circle: ${steps.join(" -> ")}`);
  }
  return { packages: packages.map((p) => p.name), edges, cycles, files: fileEdges, circles, problems };
}

/**
 * The cycles of a graph (edges: node -> Set or Map of successors), each as the nodes it passes in
 * order, back to its first. Every node on a cycle is named by at least one: in name order, the
 * shortest cycle through each node no earlier cycle passed.
 */
export function findCycles(edges) {
  const cycles = [];
  const passed = new Set();
  for (const start of [...edges.keys()].sort()) {
    if (passed.has(start)) continue;
    const cycle = shortestCycle(start, edges);
    if (!cycle) continue;
    for (const node of cycle) passed.add(node);
    cycles.push(cycle);
  }
  return cycles.sort((a, b) => a.join("\n").localeCompare(b.join("\n")));
}

/** Breadth first from `start` back to `start`; undefined for a node on no cycle. */
function shortestCycle(start, edges) {
  const successors = (node) => [...(edges.get(node)?.keys() ?? [])].sort();
  const parent = new Map();
  const queue = [start];
  for (const node of queue) {
    for (const next of successors(node)) {
      if (next === start) {
        const cycle = [start];
        for (let at = node; at !== start; at = parent.get(at)) cycle.splice(1, 0, at);
        return [...cycle, start];
      }
      if (!parent.has(next)) {
        parent.set(next, node);
        queue.push(next);
      }
    }
  }
  return undefined;
}

if (process.argv[1] && statSync(process.argv[1]).isFile() && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const { edges, files, problems } = analyse(process.argv[2] ? path.resolve(process.argv[2]) : repoRoot);
  console.log("Layers:");
  const width = Math.max(...LAYERS.map((layer) => layer.name.length));
  for (const layer of LAYERS) {
    const rule = layerRule(layer);
    console.log(`  ${layer.name.padEnd(width)}  ${layer.packages.join(", ")}  (${layer.role}${rule ? `; ${rule}` : ""})`);
  }
  console.log("\nPackages:");
  for (const [name, deps] of edges) console.log(`  ${name} -> ${[...deps].sort().join(", ") || "(nothing)"}`);
  const imports = [...files.values()].reduce((sum, targets) => sum + targets.size, 0);
  console.log(`\nFiles: ${files.size}, ${imports} imports between them`);
  if (problems.length) console.error(`\n${problems.length} problem${problems.length === 1 ? "" : "s"}:\n${problems.map((problem) => `  ${problem}`).join("\n")}`);
  else console.log("\nNo problem: every package in its layer, no cycle, no import circle.");
  process.exit(problems.length ? 1 : 0);
}
