import { contractOf, loadBundle, type ApiContract, type ApiName } from "@api-contracts/contract-core";
import { AnswerCache, defaultCacheDir } from "./answers.js";
import { loadPrism, type PrismOperation } from "./prism.js";

export type Service = ApiName;

export interface ApiDescription {
  /** The API's contract: its facts, its decision on a request and the wording of its refusals. */
  contract: ApiContract;
  /**
   * Each operation as Prism models it, by method and path template (`POST /v2/crawl`): at least its
   * documented statuses and example names (what `Prefer` is resolved against).
   */
  operations: Map<string, PrismOperation>;
  /** Prism's whole model of the operation of a key, Prism loaded (once) on the first call. */
  prismOperation(key: string): Promise<PrismOperation>;
  /** Prism's answers from the examples, kept per description (on disk unless told not to). */
  answers: AnswerCache;
}

/** The key of an operation among Prism's: its method in upper case and its path template. */
export const operationKey = (operation: { method: string; path: string }) => `${operation.method.toUpperCase()} ${operation.path}`;

const models = new WeakMap<ApiContract, Promise<Map<string, PrismOperation>>>();

/** Prism's model of an API's operations, by key; made once per process and contract. */
function prismModel(contract: ApiContract): Promise<Map<string, PrismOperation>> {
  let model = models.get(contract);
  if (!model) {
    // Prism dereferences in place, so it gets its own copy of the document.
    model = Promise.resolve()
      .then(() => loadPrism().getHttpOperationsFromSpec(loadBundle(contract.api.name)))
      .then((operations) => new Map(operations.map((operation) => [operationKey(operation), operation])));
    models.set(contract, model);
    model.catch(() => models.delete(contract));
  }
  return model;
}

/**
 * An API's contract and its operations prepared for Prism. With answers kept from an earlier start
 * of the same description (in `cacheDir`, default {@link defaultCacheDir}; `false` keeps none),
 * Prism is not loaded until an answer that is not kept is asked for, or with `prism` (generated
 * bodies need it for every answer).
 */
export async function loadApi(service: Service, options: { cacheDir?: string | false; prism?: boolean } = {}): Promise<ApiDescription> {
  const contract = contractOf(service);
  const dir = options.cacheDir === false ? undefined : (options.cacheDir ?? defaultCacheDir());
  const answers = new AnswerCache(service, contract.validators.document, dir);
  const prismOperation = async (key: string) => {
    const operation = (await prismModel(contract)).get(key);
    if (!operation) throw new Error(`Prism has no operation ${key}`);
    return operation;
  };
  if (answers.outlines && !options.prism) {
    return { contract, operations: new Map(answers.outlines.map((outline) => [operationKey(outline), outline])), prismOperation, answers };
  }
  const operations = await prismModel(contract);
  if (!answers.outlines) answers.setOutlines([...operations.values()]);
  return { contract, operations, prismOperation, answers };
}
