import { readFileSync, statSync } from "node:fs";
import { ContractErrors, OpenApiValidators, bundleFiles, getApi, loadBundle, type ApiName, type JsonObject } from "@api-contracts/contract-core";
import { loadPrism, type PrismOperation } from "./prism.js";

export type Service = ApiName;

export interface ApiDescription {
  service: Service;
  document: JsonObject;
  operations: PrismOperation[];
  /** The API's validators and its way of wording refusals. */
  errors: ContractErrors;
}

const cache = new Map<string, { version: number; description: Promise<ApiDescription> }>();

/** Loads an API's bundle and prepares it for Prism; cached per process until the bundle file changes. */
export function loadApi(service: Service): Promise<ApiDescription> {
  const api = getApi(service);
  const files = bundleFiles(api);
  const version = files ? statSync(files.json).mtimeMs : 0;
  const hit = cache.get(service);
  if (hit && hit.version === version) return hit.description;
  const description = (async (): Promise<ApiDescription> => {
    const text = files ? readFileSync(files.json, "utf8") : JSON.stringify(loadBundle(api));
    const document = JSON.parse(text) as JsonObject;
    // Prism dereferences in place, so it gets its own copy of the document.
    const operations = await loadPrism().getHttpOperationsFromSpec(JSON.parse(text) as object);
    const errors = new ContractErrors(api, { validators: new OpenApiValidators(document) });
    return { service, document, operations, errors };
  })();
  cache.set(service, { version, description });
  description.catch(() => cache.delete(service));
  return description;
}
