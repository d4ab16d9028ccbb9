import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { JsonObject } from "./pointer.js";
import { entitlementsWording, webdataWording, type ErrorWording } from "../wording/wording.js";

/** The names of the APIs this repository describes; a registered API may use any other name. */
export type ApiName = "entitlements" | "webdata" | (string & {});

/** Where an API's bundled description is: files on disk, or a document held in memory. */
export type BundleSource = { json: string; yaml?: string } | { document: JsonObject };

/** Everything the tools know about one API besides its bundle. */
export interface ApiDefinition {
  /** File stem of its bundles and of its reference page: `webdata`. */
  name: ApiName;
  title: string;
  bundle: BundleSource;
  /** Port of its mock when none is given. */
  mockPort: number;
  /** How its API keys start: `fc-`. */
  keyPrefix: string;
  /** Environment variable that samples and tools read its key from. */
  keyEnv: string;
  /** The typed client that speaks it. */
  client: { package: string; factory: string };
  /** How it turns a refused request into its documented error body. */
  wording: ErrorWording;
}

const require = createRequire(import.meta.url);

/** Bundles of the APIs described in this repository, resolved on first use (the spec may not be built yet). */
function specBundle(name: string): BundleSource {
  return {
    get json() {
      return require.resolve(`@api-contracts/spec/${name}.json`);
    },
    get yaml() {
      return require.resolve(`@api-contracts/spec/${name}.yaml`);
    },
  };
}

const registry = new Map<string, ApiDefinition>();

for (const definition of [
  {
    name: "entitlements",
    title: "Entitlements API",
    bundle: specBundle("entitlements"),
    mockPort: 4011,
    keyPrefix: "am_sk_",
    keyEnv: "ENTITLEMENTS_API_KEY",
    client: { package: "@api-contracts/entitlements-client", factory: "createEntitlementsClient" },
    wording: entitlementsWording,
  },
  {
    name: "webdata",
    title: "Web Data API",
    bundle: specBundle("webdata"),
    mockPort: 4010,
    keyPrefix: "fc-",
    keyEnv: "WEBDATA_API_KEY",
    client: { package: "@api-contracts/webdata-client", factory: "createWebdataClient" },
    wording: webdataWording,
  },
] satisfies ApiDefinition[]) {
  registry.set(definition.name, definition);
}

/**
 * Adds an API to the registry, so that every tool can serve, validate and word it like the
 * others. Returns a function that removes it again (for tests).
 */
export function registerApi(definition: ApiDefinition): () => void {
  if (registry.has(definition.name)) throw new Error(`an API named ${definition.name} is already registered`);
  registry.set(definition.name, definition);
  return () => {
    if (registry.get(definition.name) === definition) registry.delete(definition.name);
  };
}

/** Every registered API, in registration order. */
export function listApis(): ApiDefinition[] {
  return [...registry.values()];
}

/** The registered API of that name; throws, listing the known names, when there is none. */
export function getApi(name: ApiName): ApiDefinition {
  const found = registry.get(name);
  if (!found) throw new Error(`unknown API '${name}'; known: ${[...registry.keys()].join(", ")}`);
  return found;
}

/** Absolute path of an API's bundle as JSON (and YAML when it has one); undefined for one held in memory. */
export function bundleFiles(api: ApiName | ApiDefinition): { json: string; yaml?: string } | undefined {
  const { bundle } = typeof api === "string" ? getApi(api) : api;
  if ("document" in bundle) return undefined;
  return bundle.yaml === undefined ? { json: bundle.json } : { json: bundle.json, yaml: bundle.yaml };
}

/** Reads the bundled description of a registered API; every call returns a fresh copy. */
export function loadBundle(api: ApiName | ApiDefinition): JsonObject {
  const { bundle } = typeof api === "string" ? getApi(api) : api;
  if ("document" in bundle) return structuredClone(bundle.document);
  return JSON.parse(readFileSync(bundle.json, "utf8")) as JsonObject;
}
