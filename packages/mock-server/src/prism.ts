// The one module that reaches into Prism; everything else in the mock sees only the types below.
// `@stoplight/prism-http` is pinned at 5.12.0: it is the newest release whose `engines` allow
// Node 20 (">=18.20.1"); every later one on the registry (5.15.x, 5.16.0) requires Node 24.
// The pin is exact because the components below are loaded from Prism's `dist/` paths, which are
// not part of its public exports.
import Module, { createRequire } from "node:module";

/** The slice of Prism's HTTP operation model this package reads. */
export interface PrismOperation {
  id: string;
  iid?: string;
  method: string;
  path: string;
  responses: Array<{ code: string; contents?: Array<{ examples?: Array<{ key: string }> }> }>;
}

export interface PrismRequest {
  method: string;
  url: { path: string; query?: Record<string, string | string[]> };
  headers?: Record<string, string>;
  body?: unknown;
}

export interface PrismResponse {
  statusCode: number;
  headers?: Record<string, unknown>;
  body?: unknown;
}

export interface MockConfig {
  dynamic: boolean;
  code?: number;
  exampleKey?: string;
  seed?: string;
}

export type Either<L, R> = { _tag: "Left"; left: L } | { _tag: "Right"; right: R };

type MockComponent = (opts: {
  resource: PrismOperation;
  // Prism's own request checks are not run: the mock judges requests with contract-core.
  input: { data: PrismRequest; validations: [] };
  config: MockConfig;
}) => (logger: unknown) => Either<Error, PrismResponse>;

const require = createRequire(import.meta.url);

/**
 * Prism pulls in every faker locale (about 0.4 s) while it only ever uses the English one, and
 * only for dynamic responses. Registering a lazy stand-in keeps start-up under a second; the
 * English build produces the same values for the same seed.
 */
function deferFakerLoading(prismRequire: NodeJS.Require): void {
  const fakerPath = prismRequire.resolve("@faker-js/faker");
  if (require.cache[fakerPath]) return;
  let faker: object | undefined;
  const load = () => (faker ??= prismRequire("@faker-js/faker/locale/en") as object);
  // json-schema-faker takes hold of the instance when Prism registers it, so the instance itself is lazy.
  const lazy = new Proxy(
    {},
    {
      get: (_, key) => Reflect.get(load(), key),
      has: (_, key) => Reflect.has(load(), key),
      ownKeys: () => Reflect.ownKeys(load()),
      getOwnPropertyDescriptor: (_, key) => {
        const descriptor = Reflect.getOwnPropertyDescriptor(load(), key);
        return descriptor && { ...descriptor, configurable: true };
      },
    },
  );
  const stand = new Module(fakerPath);
  stand.filename = fakerPath;
  stand.loaded = true;
  stand.exports = { default: lazy, faker: lazy };
  require.cache[fakerPath] = stand;
}

/** Whether an object graph refers back to one of its own ancestors. */
export function hasCycle(root: object): boolean {
  const finished = new WeakSet<object>();
  const onPath = new WeakSet<object>();
  const visit = (node: object): boolean => {
    if (finished.has(node)) return false;
    if (onPath.has(node)) return true;
    onPath.add(node);
    for (const value of Object.values(node)) {
      if (value !== null && typeof value === "object" && visit(value as object)) return true;
    }
    onPath.delete(node);
    finished.add(node);
    return false;
  };
  return visit(root);
}

/** Prism's HTTP components, loaded one by one: the package index also loads the proxy and its HTTP client. */
interface LoadedPrism {
  getHttpOperationsFromSpec(document: object): Promise<PrismOperation[]>;
  mock: MockComponent;
}

let loaded: LoadedPrism | undefined;

export function loadPrism(): LoadedPrism {
  if (!loaded) {
    const fromPrism = createRequire(require.resolve("@stoplight/prism-http"));
    deferFakerLoading(fromPrism);
    // Prism's own loader also pulls in the Postman importer (and with it faker); only OpenAPI 3 is needed.
    const RefParser = fromPrism("@stoplight/json-schema-ref-parser") as new () => { dereference(d: object): Promise<object> };
    const { transformOas3Operations } = fromPrism("@stoplight/http-spec/oas3/operation") as {
      transformOas3Operations(d: object): PrismOperation[];
    };
    const { decycle, bundleTarget } = fromPrism("@stoplight/json") as {
      decycle(d: object): object;
      bundleTarget(o: { document: object; path: string; cloneDocument: boolean }): PrismOperation;
    };
    const getHttpOperationsFromSpec = async (document: object) => {
      const dereferenced = await new RefParser().dereference(document);
      // decycle copies every shared schema and computes a pointer for every node (about a tenth of
      // start-up); only a recursive schema, which dereferencing turns into a cycle, needs it.
      const resolved = hasCycle(dereferenced) ? decycle(dereferenced) : dereferenced;
      // Each operation carries the document under `__bundled__`, where Prism's validators look up `$ref`s.
      return transformOas3Operations(resolved).map((operation) =>
        bundleTarget({ document: { ...resolved, __target__: operation }, path: "#/__target__", cloneDocument: false }),
      );
    };
    const mocker = require("@stoplight/prism-http/dist/mocker/index.js") as { default: MockComponent };
    loaded = { getHttpOperationsFromSpec, mock: mocker.default };
  }
  return loaded;
}

/** A pino-compatible logger that discards everything: Prism's logging halves throughput. */
export function silentLogger(): unknown {
  const levels = ["trace", "debug", "info", "warn", "error", "fatal", "success"];
  const logger: Record<string, unknown> = { level: "silent", isLevelEnabled: () => false, child: () => logger };
  for (const level of levels) logger[level] = () => undefined;
  return logger;
}
