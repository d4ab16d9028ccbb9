import { ExchangeJudge, OpenApiValidators, follow, isObject, loadBundle, resolvePointer, summarizeAnswer, summarizeKeptAnswer, summarizeProblems, type ApiName, type ContractProblem, type JsonObject, type WalkedOperation } from "@api-contracts/contract-core";

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

/** Loads the bundled description of one API from `@api-contracts/spec` (contract-core's `loadBundle`). */
export const loadBundledSpec: (service: ApiName) => JsonObject = loadBundle;

const contracts = new Map<ApiName, Contract>();

/**
 * The contract of one API, made once per process: its validators compile each schema on first use
 * and keep it, so runs side by side (a test's, a bench's) share that work instead of each holding
 * the event loop to compile the same schemas again.
 */
export function contractOf(service: ApiName): Contract {
  let contract = contracts.get(service);
  if (!contract) contracts.set(service, (contract = new Contract(loadBundledSpec(service))));
  return contract;
}

/**
 * An OpenAPI 3.1 bundle as the kit reads it: its operations as contract-core walks them, and the
 * judge of answers (contract-core's `ExchangeJudge`).
 */
export class Contract {
  /** The bundle's validators (contract-core), for what the contract judges beyond answers: webhook calls. */
  readonly validators: OpenApiValidators;
  private readonly judgement: ExchangeJudge;

  constructor(readonly doc: JsonObject) {
    this.validators = new OpenApiValidators(doc);
    this.judgement = new ExchangeJudge(this.validators);
  }

  /** Every operation of the contract, in document order. */
  listOperations(): WalkedOperation[] {
    return this.validators.walkedOperations();
  }

  operation(operationId: string): WalkedOperation {
    const found = this.listOperations().find((op) => op.operationId === operationId);
    if (!found) throw new Error(`The contract has no operation ${operationId}`);
    return found;
  }

  /** The operation a request hits, by method and path; concrete paths win over templated ones. */
  findOperation(method: string, path: string): { operationId: string } | undefined {
    return this.validators.findOperation(method, path);
  }

  /** Pointer of the JSON Schema of the request body (application/json), past a `$ref`; undefined when it takes none. */
  requestBodySchema(operationId: string): string | undefined {
    return this.written(this.operation(operationId).requestBody?.media.find((media) => media.mediaType === "application/json")?.schema);
  }

  /** Pointer of the schema of a parameter of the operation (path, query or header), past a `$ref`. */
  parameter(operationId: string, location: string, name: string): string | undefined {
    return this.written(this.operation(operationId).parameters.find((param) => param.in === location && param.name === name)?.schema);
  }

  /** Where the schema at a pointer is written: a schema that is only a `$ref` is followed, so that its members' pointers resolve. */
  private written(pointer: string | undefined): string | undefined {
    return pointer === undefined ? undefined : follow(this.doc, this.at(pointer), pointer).pointer;
  }

  /** Whether the schema at a pointer of the bundle accepts a value. */
  accepts(pointer: string, value: unknown): boolean {
    return this.validators.schema(pointer)(value) as boolean;
  }

  /** Judges one answer against the contract of the operation the request hit (contract-core's judgement). */
  judge(exchange: Exchange): Verdict {
    const operation = this.judgement.findOperation(exchange.method, exchange.path);
    if (!operation) {
      const { problems } = this.judgement.request({ method: exchange.method, target: exchange.path, headers: {} });
      return { ok: false, reason: summarizeProblems(problems), problems };
    }
    const { problems, body } = this.judgement.answer(operation, exchange.method, exchange);
    const parsed = body === undefined ? {} : { body };
    if (problems.length > 0) return { ok: false, reason: summarizeAnswer(exchange.status, problems), problems, ...parsed };
    return { ok: true, reason: summarizeKeptAnswer(exchange), problems, ...parsed };
  }

  /** Reads the value at a JSON pointer of the bundle. */
  at(pointer: string): unknown {
    return resolvePointer(this.doc, pointer);
  }

  /** A schema found at a pointer, following a `$ref` if it is only one. */
  schemaAt(pointer: string): JsonObject {
    const { node } = follow(this.doc, this.at(pointer), pointer);
    return isObject(node) ? node : {};
  }
}
