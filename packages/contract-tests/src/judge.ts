import { ExchangeJudge, OpenApiValidators, fieldErrors, follow, loadBundle, problemsOf, resolvePointer, summarizeAnswer, summarizeKeptAnswer, summarizeProblems, type ContractProblem } from "@api-contracts/contract-core";

export type Service = "entitlements" | "webdata";

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

export interface OperationRef {
  operationId: string;
  method: string;
  pathTemplate: string;
  /** JSON pointer of the operation object inside the bundle. */
  pointer: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Loads the bundled description of one API from `@api-contracts/spec`. */
export function loadBundledSpec(service: Service): JsonObject {
  return loadBundle(service) as JsonObject;
}

const contracts = new Map<Service, Contract>();

/**
 * The contract of one API, made once per process: its validators compile each schema on first use
 * and keep it, so runs side by side (a test's, a bench's) share that work instead of each holding
 * the event loop to compile the same schemas again.
 */
export function contractOf(service: Service): Contract {
  let contract = contracts.get(service);
  if (!contract) contracts.set(service, (contract = new Contract(loadBundledSpec(service))));
  return contract;
}

/**
 * An OpenAPI 3.1 bundle turned into a judge of answers: it finds the operation an exchange
 * belongs to, and says whether status, content type and body are the ones the contract allows.
 */
export class Contract {
  readonly doc: JsonObject;
  /** The bundle's validators (contract-core), for what the contract judges beyond answers: webhook calls. */
  readonly validators: OpenApiValidators;
  private readonly judgement: ExchangeJudge;
  private readonly operations: OperationRef[];

  constructor(doc: JsonObject) {
    this.doc = doc;
    this.validators = new OpenApiValidators(doc);
    this.judgement = new ExchangeJudge(this.validators);
    this.operations = this.validators
      .listOperations()
      .map(({ operationId, method, path, pointer }) => ({ operationId, method, pathTemplate: path, pointer }));
  }

  /** Every operation of the contract, in document order. */
  listOperations(): OperationRef[] {
    return this.operations.map((ref) => ({ ...ref }));
  }

  operation(operationId: string): OperationRef {
    const found = this.operations.find((op) => op.operationId === operationId);
    if (!found) throw new Error(`The contract has no operation ${operationId}`);
    return { ...found };
  }

  /** The operation a request hits, by method and path; concrete paths win over templated ones. */
  findOperation(method: string, path: string): OperationRef | undefined {
    const found = this.validators.findOperation(method, path);
    return found && { operationId: found.operationId, method: found.method, pathTemplate: found.path, pointer: found.pointer };
  }

  /** The operation object, with path-item and operation parameters merged. */
  operationObject(ref: OperationRef): JsonObject {
    const op = this.at(ref.pointer);
    return isObject(op) ? op : {};
  }

  /** Status codes the operation documents, as written in the contract ("200", "4XX", "default"). */
  documentedStatuses(operationId: string): string[] {
    const op = this.operationObject(this.operation(operationId));
    return isObject(op.responses) ? Object.keys(op.responses) : [];
  }

  /** The JSON Schema of the request body (application/json), and its pointer. */
  requestBodySchema(operationId: string): { schema: JsonObject; pointer: string } | undefined {
    const ref = this.operation(operationId);
    const { value: body, pointer } = this.deref(this.operationObject(ref).requestBody, `${ref.pointer}/requestBody`);
    if (!isObject(body) || !isObject(body.content)) return undefined;
    const media = body.content["application/json"];
    if (!isObject(media) || !isObject(media.schema)) return undefined;
    return this.derefSchema(media.schema, `${pointer}/content/application~1json/schema`);
  }

  /** A parameter of the operation (path, query or header), with its schema resolved. */
  parameter(operationId: string, location: string, name: string): { schema: JsonObject; pointer: string } | undefined {
    const ref = this.operation(operationId);
    const itemPointer = ref.pointer.slice(0, ref.pointer.lastIndexOf("/"));
    for (const base of [ref.pointer, itemPointer]) {
      const list = this.at(`${base}/parameters`);
      if (!Array.isArray(list)) continue;
      for (let i = 0; i < list.length; i++) {
        const { value: param, pointer } = this.deref(list[i], `${base}/parameters/${i}`);
        if (isObject(param) && param.in === location && param.name === name && isObject(param.schema)) {
          return this.derefSchema(param.schema, `${pointer}/schema`);
        }
      }
    }
    return undefined;
  }

  /** Validates any value against the schema at a pointer of the bundle. */
  validate(pointer: string, value: unknown): { ok: boolean; errors: string } {
    const validator = this.validators.schema(pointer);
    const ok = validator(value) as boolean;
    return { ok, errors: ok ? "" : summarizeProblems(problemsOf(fieldErrors(validator.errors, "body"))) };
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
    if (problems.length > 0) {
      return { ok: false, reason: summarizeAnswer(exchange.status, problems), problems, ...parsed };
    }
    return { ok: true, reason: summarizeKeptAnswer(exchange), problems, ...parsed };
  }

  /** Reads the value at a JSON pointer of the bundle. */
  at(pointer: string): Json | undefined {
    return resolvePointer(this.doc, pointer) as Json | undefined;
  }

  /** Follows local `$ref`s of OpenAPI objects (responses, parameters, bodies, path items). */
  private deref(value: Json | undefined, pointer: string): { value: Json | undefined; pointer: string } {
    const { node, pointer: at } = follow(this.doc, value, pointer);
    return { value: node as Json | undefined, pointer: at };
  }

  /** Resolves a schema that is only a `$ref`, so its members can be inspected. */
  private derefSchema(schema: JsonObject, pointer: string): { schema: JsonObject; pointer: string } {
    const { value, pointer: at } = this.deref(schema, pointer);
    return { schema: isObject(value) ? value : {}, pointer: at };
  }

  /** A schema found at a pointer, following a `$ref` if it is only one. */
  schemaAt(pointer: string): JsonObject {
    const node = this.at(pointer);
    return isObject(node) ? this.derefSchema(node, pointer).schema : {};
  }
}
