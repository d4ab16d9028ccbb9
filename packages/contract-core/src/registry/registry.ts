// The registry of APIs: every API the spec package describes (its `apis.json`, built from each
// `spec/<api>/` folder), and any other API folder named by CONTRACT_API_DIRS or registered by code.
// Every tool lists, serves and judges the APIs it finds here; none knows an API by name.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { isObject, type JsonObject } from "../document/pointer.js";
import { ApiContract, type ApiEntry } from "../judgement/api-contract.js";
import { factsProblems } from "../judgement/decision.js";
import type { ValidatorOptions } from "../validation/validators.js";

/** The name of an API: its folder's name under `spec/` (`webdata`), the stem of its bundles and reference page. */
export type ApiName = "entitlements" | "webdata" | (string & {});

/** Where an API's bundled description is: files on disk, or a document held in memory. */
export type BundleSource = { json: string; yaml?: string } | { document: JsonObject };

/** An API of the registry: its facts, and where its description is. */
export type ApiDefinition = ApiEntry & { bundle: BundleSource };

/** The environment variable naming more API folders (separated by the platform's path delimiter), each served like the spec's own. */
export const API_DIRS_VARIABLE = "CONTRACT_API_DIRS";

const require = createRequire(import.meta.url);

let registry: Map<string, ApiDefinition> | undefined;
let factsValidator: ValidateFunction | undefined;

/** Throws, naming the API and every problem, when its facts do not hold together. */
function checked(definition: ApiDefinition): ApiDefinition {
  const problems = factsProblems(definition);
  if (problems.length > 0) throw new Error(`the facts of the API ${definition.name} do not hold together: ${problems.join("; ")}`);
  return definition;
}

/** Bundles of the APIs the spec package describes, resolved on first use (the spec may not be built yet). */
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

/**
 * An API described by a folder of its own: `openapi.json` (its bundled description) and
 * `api.json` (its facts, in the format of `@api-contracts/spec/api.schema.json`); named by the folder.
 */
export function readApiFolder(dir: string): ApiDefinition {
  const name = path.basename(path.resolve(dir));
  const read = (file: string): unknown => {
    try {
      return JSON.parse(readFileSync(path.join(dir, file), "utf8"));
    } catch (error) {
      throw new Error(`the API folder ${dir} has no readable ${file}: ${(error as Error).message}`);
    }
  };
  const facts = read("api.json");
  factsValidator ??= new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(require.resolve("@api-contracts/spec/api.schema.json"), "utf8")));
  if (!factsValidator(facts)) {
    const problems = (factsValidator.errors ?? []).slice(0, 10).map((e) => `${e.instancePath || "/"} ${e.message}`);
    throw new Error(`${path.join(dir, "api.json")} is not of the facts' format: ${problems.join("; ")}`);
  }
  const json = path.resolve(dir, "openapi.json");
  const document = read("openapi.json");
  const info = isObject(document) && isObject(document.info) ? document.info : {};
  return checked({ ...(facts as ApiEntry), name, title: typeof info.title === "string" ? info.title : name, bundle: { json } });
}

function load(): Map<string, ApiDefinition> {
  if (registry) return registry;
  const found = new Map<string, ApiDefinition>();
  const described = JSON.parse(readFileSync(require.resolve("@api-contracts/spec/apis.json"), "utf8")) as ApiEntry[];
  for (const entry of described) found.set(entry.name, checked({ ...entry, bundle: specBundle(entry.name) }));
  for (const dir of (process.env[API_DIRS_VARIABLE] ?? "").split(path.delimiter).filter(Boolean)) {
    const definition = readApiFolder(dir);
    if (found.has(definition.name)) throw new Error(`${API_DIRS_VARIABLE}: ${dir} names the API ${definition.name}, which is already registered`);
    found.set(definition.name, definition);
  }
  return (registry = found);
}

/**
 * Adds an API to the registry, so that every tool can serve, validate and word it like the
 * others. Returns a function that removes it again (for tests).
 */
export function registerApi(definition: ApiDefinition): () => void {
  const apis = load();
  if (apis.has(definition.name)) throw new Error(`an API named ${definition.name} is already registered`);
  apis.set(definition.name, checked(definition));
  return () => {
    if (apis.get(definition.name) === definition) apis.delete(definition.name);
    contracts.delete(definition.name);
  };
}

/** Every registered API: the spec's in its order, then the others in the order they came. */
export function listApis(): ApiDefinition[] {
  return [...load().values()];
}

/** The registered API of that name; throws, listing the known names, when there is none. */
export function getApi(name: ApiName): ApiDefinition {
  const found = load().get(name);
  if (!found) throw new Error(`unknown API '${name}'; known: ${[...load().keys()].join(", ")}`);
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

const contracts = new Map<string, ApiContract>();

/**
 * The contract of a registered API. Without options it is made once per process and shared: its
 * validators compile each schema on first use and keep it, so that tools side by side (a test's
 * servers, a bench's) do that work once. With options (another clock) a new one is made.
 */
export function contractOf(api: ApiName | ApiDefinition, options?: ValidatorOptions): ApiContract {
  const definition = typeof api === "string" ? getApi(api) : api;
  if (options !== undefined) return new ApiContract(definition, loadBundle(definition), options);
  let contract = contracts.get(definition.name);
  if (!contract || contract.api !== definition) contracts.set(definition.name, (contract = new ApiContract(definition, loadBundle(definition))));
  return contract;
}
