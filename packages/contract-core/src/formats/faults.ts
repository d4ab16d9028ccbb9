// The faults format that the mock (`api-mock --faults`) and the contract proxy (`contract-proxy
// --faults`) both take: one JSON Schema (schema/faults.schema.json), one parser, and the checks a
// schema cannot make (operations that exist, statuses they document), each naming its rule.
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import type { FaultRule, Faults } from "../generated/faults.js";
import { documentedAnswer } from "../judgement/answers.js";
import { contractOf, type ApiName } from "../registry/registry.js";
import type { OpenApiValidators } from "../validation/validators.js";
import { MAX_LATENCY_MS } from "../wire/prefer.js";
import { fieldMessage } from "../wording/wording.js";
import { listProblems, readJsonFile, shippedSchema } from "./files.js";

export type { Faults, FaultRule, Latency, UniformLatency, LogNormalLatency } from "../generated/faults.js";

/** A faults file that is not one: the message names the file and the rule at fault. Tools exit 2 on it. */
export class FaultsError extends Error {
  override name = "FaultsError";
}

/** A faults file larger than this is refused: it is a short list a person writes. */
export const FAULTS_FILE_LIMIT = 256 * 1024;

/** A rule as the injectors read it: defaults filled in, its name and position known. */
export interface CheckedFaultRule extends Pick<FaultRule, "latency" | "fault" | "status" | "retryAfter"> {
  /** `name`, or `rule <n>` counting from 1. */
  name: string;
  /** Position in the file, from 1. */
  position: number;
  /** The operationIds it applies to; undefined for every operation. */
  operations: string[] | undefined;
  probability: number;
}

let validate: ValidateFunction | undefined;

/** The format's JSON Schema (2020-12), also shipped as `@api-contracts/contract-core/faults.schema.json`. */
export function faultsSchema(): object {
  return shippedSchema("faults.schema.json");
}

function label(rule: unknown, position: number): string {
  const name = typeof rule === "object" && rule !== null ? (rule as { name?: unknown }).name : undefined;
  return typeof name === "string" && name.length > 0 && name.length <= 100 ? `rule ${position} ("${name}")` : `rule ${position}`;
}

/** One sentence for one schema error, inside the rule it concerns. */
function describeError(error: ErrorObject): string | undefined {
  const parts = error.instancePath.split("/").slice(3);
  const member = parts[0];
  const params = error.params as { additionalProperty?: string; property?: string; missingProperty?: string };
  switch (error.keyword) {
    case "if":
      return undefined;
    case "anyOf":
      return member === undefined ? "needs latency, fault or status" : undefined;
    case "required":
      return member === undefined ? undefined : `latency needs ${params.missingProperty}`;
    case "not":
      return "has both fault and status; a rule gives one of them";
    case "dependentRequired":
      return `has ${params.property} without ${params.missingProperty}`;
    case "additionalProperties":
      return `${member === undefined ? "has" : `${member} has`} "${params.additionalProperty}", which is not part of the format`;
    case "oneOf":
      if (member === "latency") return `latency must be a whole number of milliseconds from 0 to ${MAX_LATENCY_MS}, {min, max} or {median, p99}`;
      if (member === "operation") return "operation must be an operationId or a list of them";
      return undefined;
    default:
      if (member === "latency" && parts.length === 1) return undefined;
      // Worded as every validation error is (contract-core's fieldMessage), after the rule's member.
      return `${parts.join(".")} ${fieldMessage({ in: "body", path: [], keyword: error.keyword, params: error.params as Record<string, unknown>, message: error.message ?? "" })}`;
  }
}

/** Checks a parsed faults document against the format, naming each rule at fault. */
export function parseFaults(value: unknown, source = "the faults"): CheckedFaultRule[] {
  validate ??= new Ajv2020({ allErrors: true, strict: true }).compile(faultsSchema());
  const problems: string[] = [];
  if (!validate(value)) {
    for (const error of validate.errors ?? []) {
      const at = /^\/rules\/(\d+)(?:\/|$)/.exec(error.instancePath);
      if (!at) {
        if (error.keyword === "additionalProperties") problems.push(`the file has "${(error.params as { additionalProperty: string }).additionalProperty}", which is not part of the format`);
        else problems.push(`${error.instancePath ? `member ${error.instancePath.slice(1)}` : "the file"} ${error.message ?? "is invalid"}`);
        continue;
      }
      const position = Number(at[1]) + 1;
      const rule = (value as Faults).rules[position - 1];
      const sentence = describeError(error);
      if (sentence) problems.push(`${label(rule, position)} ${sentence}`);
    }
    if (problems.length === 0) problems.push("does not match the faults format");
  }
  const rules = problems.length === 0 ? (value as Faults).rules : [];
  rules.forEach((rule: FaultRule, i) => {
    const latency = rule.latency;
    if (typeof latency === "object" && "min" in latency && latency.min > latency.max) problems.push(`${label(rule, i + 1)} latency has min ${latency.min} above max ${latency.max}`);
    if (typeof latency === "object" && "median" in latency && latency.median > latency.p99) problems.push(`${label(rule, i + 1)} latency has median ${latency.median} above p99 ${latency.p99}`);
  });
  if (problems.length > 0) throw new FaultsError(`${source}: ${listProblems([...new Set(problems)])}`);
  return rules.map((rule, i) => ({
    name: rule.name ?? `rule ${i + 1}`,
    position: i + 1,
    operations: rule.operation === undefined ? undefined : typeof rule.operation === "string" ? [rule.operation] : [...rule.operation],
    probability: rule.probability ?? 1,
    latency: rule.latency,
    fault: rule.fault,
    status: rule.status,
    retryAfter: rule.retryAfter,
  }));
}

/** The operations of the APIs a faults file is used with, by operationId. */
export interface FaultTargets {
  apis: Array<{ name: string; validators: OpenApiValidators }>;
}

/**
 * Checks what the schema cannot: every operation a rule names exists in one of the APIs, and the
 * status of a rule is documented, with an example to serve, by every operation the rule applies to.
 */
export function checkFaultTargets(rules: readonly CheckedFaultRule[], targets: FaultTargets, source = "the faults"): void {
  const problems: string[] = [];
  const operations = targets.apis.flatMap((api) => api.validators.walkedOperations().map((operation) => ({ api: api.name, validators: api.validators, operation })));
  for (const rule of rules) {
    const ruleLabel = label(rule.name === `rule ${rule.position}` ? {} : rule, rule.position);
    const unknown = (rule.operations ?? []).filter((id) => !operations.some((o) => o.operation.operationId === id));
    if (unknown.length > 0) {
      problems.push(`${ruleLabel} names ${unknown.map((id) => `"${id}"`).join(", ")}, which ${unknown.length === 1 ? "is not an operation" : "are not operations"} of the ${targets.apis.map((a) => a.name).join(" or ")} API; operations: ${[...new Set(operations.map((o) => o.operation.operationId))].join(", ")}`);
      continue;
    }
    if (rule.status === undefined) continue;
    const hit = operations.filter((o) => rule.operations === undefined || rule.operations.includes(o.operation.operationId));
    const undocumented = hit.filter((o) => documentedAnswer(o.validators, o.operation.operationId, rule.status!) === undefined).map((o) => o.operation.operationId);
    if (undocumented.length > 0) {
      problems.push(`${ruleLabel} answers ${rule.status}, which ${undocumented.join(", ")} ${undocumented.length === 1 ? "does" : "do"} not document with an example; name the operations that do in "operation"`);
    }
  }
  if (problems.length > 0) throw new FaultsError(`${source}: ${listProblems(problems)}`);
}

/**
 * Reads a faults file (JSON) and checks it against the format and against the named APIs' operations.
 * Errors name it as `--faults <file>` and the rule at fault.
 */
export function loadFaults(file: string, apis: readonly ApiName[]): CheckedFaultRule[] {
  const named = `--faults ${file}`;
  const rules = parseFaults(readJsonFile(file, named, FAULTS_FILE_LIMIT, FaultsError), named);
  checkFaultTargets(rules, { apis: apis.map((name) => ({ name, validators: contractOf(name).validators })) }, named);
  return rules;
}
