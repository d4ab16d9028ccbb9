// The kit's checks as one registry over contract-core's registry of APIs: every API gets the
// generic checks (refusals its decision names), the HTTP probes and, with --generate, the checks
// generated from its description; an API the kit knows more of adds its own module below (its typed
// client, its hand-written checks, its fixtures' values), keyed by the module's name.
import { listApis, type ApiName } from "@api-contracts/contract-core";
import type { Check, KitApi, Level } from "./types.js";
import { contractOf, type Contract } from "../judge.js";
import { entitlements } from "./entitlements.js";
import { webdata } from "./webdata.js";
import { genericChecks } from "./common.js";
import { httpProbes } from "../probes/checks.js";
import { generatedChecks, type GenerationOptions } from "../generate/generated.js";
import { UsageError } from "../fixtures.js";

const MODULES: readonly KitApi[] = [entitlements, webdata];

/** An API the kit can test: any name of contract-core's registry. */
export type Service = ApiName;

/** The APIs the kit can test, in the order of contract-core's registry (those of CONTRACT_API_DIRS included). */
export function services(): Service[] {
  return listApis().map((api) => api.name);
}

/** What the kit knows of an API beyond its description and facts: its module, or nothing for an API it has none for. */
export function kitApi(service: Service): KitApi {
  if (!services().includes(service)) throw new Error(`${service} is not a registered API; the registered ones are ${services().join(", ")}`);
  return MODULES.find((module) => module.name === service) ?? { name: service };
}

/** Which operations a run covers: operationIds or tags to keep (all when none) and to leave out. */
export interface Selection {
  include?: readonly string[];
  exclude?: readonly string[];
}

/**
 * The operationIds a selection keeps, in document order; a UsageError for a name that is neither
 * an operationId nor a tag of the API, or a selection that keeps nothing.
 */
export function selectOperations(contract: Contract, { include = [], exclude = [] }: Selection): Set<string> {
  const operations = contract.listOperations();
  const tags = new Set(operations.flatMap((op) => tagsOf(op.operation)));
  const unknown = [...include, ...exclude].filter((name) => !tags.has(name) && !operations.some((op) => op.operationId === name));
  if (unknown.length > 0) {
    const known = [...operations.map((op) => op.operationId), ...[...tags].map((tag) => `${tag} (tag)`)];
    throw new UsageError(`${unknown.map((name) => JSON.stringify(name)).join(", ")} ${unknown.length === 1 ? "is" : "are"} neither an operationId nor a tag of ${contract.core.api.title}; it has ${known.join(", ")}`);
  }
  const names = (op: (typeof operations)[number]) => [op.operationId, ...tagsOf(op.operation)];
  const kept = operations.filter((op) => (include.length === 0 || names(op).some((name) => include.includes(name))) && !names(op).some((name) => exclude.includes(name)));
  if (kept.length === 0) throw new UsageError(`the selection (--include ${include.join(",") || "(all)"}, --exclude ${exclude.join(",") || "(none)"}) leaves no operation of ${contract.core.api.title}`);
  return new Set(kept.map((op) => op.operationId));
}

const tagsOf = (operation: Record<string, unknown>): string[] => (Array.isArray(operation.tags) ? operation.tags.filter((tag): tag is string => typeof tag === "string") : []);

/**
 * The checks a run performs, in order: the API's own checks, the generic ones and the HTTP probes of
 * the level (behavior runs every one), then the generated checks when `generate` is given; only
 * those of the operations `selection` keeps.
 */
export function listChecks(service: Service, level: Level, { contract = contractOf(service), generate, ...selection }: { contract?: Contract; generate?: GenerationOptions } & Selection = {}): Check[] {
  const api = kitApi(service);
  const hints = api.hints ?? (() => ({}));
  const kept = selectOperations(contract, selection);
  const all = [...(api.checks?.(contract) ?? []), ...genericChecks(contract, hints), ...httpProbes(contract), ...(generate ? generatedChecks(contract, hints, generate) : [])];
  return all.filter((check) => kept.has(check.operation) && (check.generated || level === "behavior" || check.level === level));
}
