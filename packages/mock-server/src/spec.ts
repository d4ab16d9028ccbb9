import { contractOf, loadBundle, type ApiContract, type ApiName } from "@api-contracts/contract-core";
import { loadPrism, type PrismOperation } from "./prism.js";

export type Service = ApiName;

export interface ApiDescription {
  /** The API's contract: its facts, its decision on a request and the wording of its refusals. */
  contract: ApiContract;
  /** Prism's model of each operation, by method and path template (`POST /v2/crawl`). */
  operations: Map<string, PrismOperation>;
}

/** The key of an operation among Prism's: its method in upper case and its path template. */
export const operationKey = (operation: { method: string; path: string }) => `${operation.method.toUpperCase()} ${operation.path}`;

const prepared = new WeakMap<ApiContract, Promise<ApiDescription>>();

/** An API's contract and its operations prepared for Prism; made once per process and contract. */
export function loadApi(service: Service): Promise<ApiDescription> {
  const contract = contractOf(service);
  let description = prepared.get(contract);
  if (!description) {
    // Prism dereferences in place, so it gets its own copy of the document.
    description = loadPrism()
      .getHttpOperationsFromSpec(loadBundle(contract.api.name))
      .then((operations) => ({ contract, operations: new Map(operations.map((operation) => [operationKey(operation), operation])) }));
    prepared.set(contract, description);
    description.catch(() => prepared.delete(contract));
  }
  return description;
}
