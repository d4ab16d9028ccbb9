// The kit's view of an API's contract: contract-core's `ApiContract` (the decision, the judge, the
// wording, the facts), with the few readings of its description the checks share.
import {
  ApiContract,
  contractOf as coreContractOf,
  follow,
  getApi,
  isObject,
  listApis,
  loadBundle,
  resolvePointer,
  summarizeAnswer,
  summarizeKeptAnswer,
  summarizeProblems,
  type ApiName,
  type ContractProblem,
  type JsonObject,
  type WalkedOperation,
} from "@api-contracts/contract-core";

/** One request and its answer, as seen on the wire. */
export interface Exchange {
  method: string;
  /** Request path relative to the base URL, without the query string. */
  path: string;
  status: number;
  contentType: string | null;
  bodyText: string;
}

export interface Verdict {
  ok: boolean;
  /** Why the answer passed or failed, in one line (contract-core's summary of the problems). */
  reason: string;
  /** What the answer breaks, as contract-core judges it; empty when it passed. */
  problems: ContractProblem[];
  /** The parsed body when it was JSON. */
  body?: unknown;
}

/** Loads the bundled description of one API (contract-core's `loadBundle`). */
export const loadBundledSpec: (service: ApiName) => JsonObject = loadBundle;

/**
 * The contract of an API as the kit reads it: `core` is contract-core's, which decides requests
 * and judges answers; this adds the operations by id and the schemas of their requests.
 */
export class Contract {
  readonly core: ApiContract;

  /** From contract-core's contract, a registered API's name, or a registered API's bundle (found by its title). */
  constructor(source: ApiContract | ApiName | JsonObject) {
    if (source instanceof ApiContract) this.core = source;
    else if (typeof source === "string") this.core = coreContractOf(source);
    else {
      const title = isObject(source.info) ? source.info.title : undefined;
      const api = listApis().find((candidate) => candidate.title === title);
      if (!api) throw new Error(`no registered API has the title ${JSON.stringify(title)}`);
      this.core = new ApiContract(getApi(api.name), source);
    }
  }

  get doc(): JsonObject {
    return this.core.validators.document;
  }

  get validators() {
    return this.core.validators;
  }

  /** Every operation of the contract, in document order. */
  listOperations(): WalkedOperation[] {
    return this.core.validators.walkedOperations();
  }

  operation(operationId: string): WalkedOperation {
    const found = this.listOperations().find((op) => op.operationId === operationId);
    if (!found) throw new Error(`The contract has no operation ${operationId}`);
    return found;
  }

  /** The operation a request hits, by method and path; concrete paths win over templated ones. */
  findOperation(method: string, path: string): { operationId: string } | undefined {
    return this.core.validators.findOperation(method, path);
  }

  /** Pointer of the JSON Schema of the request body (application/json), past a `$ref`; undefined when it takes none. */
  requestBodySchema(operationId: string): string | undefined {
    return this.written(this.operation(operationId).requestBody?.media.find((media) => media.mediaType === "application/json")?.schema);
  }

  /** Pointer of the schema of a parameter of the operation (path, query or header), past a `$ref`. */
  parameter(operationId: string, location: string, name: string): string | undefined {
    return this.written(this.operation(operationId).parameters.find((param) => param.in === location && param.name.toLowerCase() === name.toLowerCase())?.schema);
  }

  /** Where the schema at a pointer is written: a schema that is only a `$ref` is followed, so that its members' pointers resolve. */
  private written(pointer: string | undefined): string | undefined {
    return pointer === undefined ? undefined : follow(this.doc, this.at(pointer), pointer).pointer;
  }

  /** Whether the schema at a pointer of the bundle accepts a value. */
  accepts(pointer: string, value: unknown): boolean {
    return this.core.validators.schema(pointer)(value) as boolean;
  }

  /** Judges one answer against the contract of the operation the request hit (contract-core's judgement). */
  judge(exchange: Exchange): Verdict {
    const { judge } = this.core;
    const operation = judge.findOperation(exchange.method, exchange.path);
    if (!operation) {
      const { problems } = judge.request({ method: exchange.method, target: exchange.path, headers: {} });
      return { ok: false, reason: summarizeProblems(problems), problems };
    }
    const { problems, body } = judge.answer(operation, exchange.method, exchange);
    const parsed = body === undefined ? {} : { body };
    if (problems.length > 0) return { ok: false, reason: summarizeAnswer(exchange.status, problems), problems, ...parsed };
    return { ok: true, reason: summarizeKeptAnswer(exchange), problems, ...parsed };
  }

  /** Reads the value at a JSON pointer of the bundle. */
  at(pointer: string): unknown {
    return resolvePointer(this.doc, pointer);
  }
}

const views = new WeakMap<ApiContract, Contract>();

/** The kit's view of a registered API's contract, over contract-core's (made once per process). */
export function contractOf(service: ApiName): Contract {
  const core = coreContractOf(service);
  let view = views.get(core);
  if (!view) views.set(core, (view = new Contract(core)));
  return view;
}
