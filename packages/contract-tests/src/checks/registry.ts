// The kit's checks as one registry: each API's hand-written checks, the HTTP probes, and, with
// --generate, the checks generated from the description, keyed by the API's name in
// contract-core's registry. Another API adds an entry here, not a branch anywhere else.
import { listApis, type ApiName } from "@api-contracts/contract-core";
import type { Check, KitApi, Level } from "./types.js";
import { contractOf, type Contract } from "../judge.js";
import { entitlements } from "./entitlements.js";
import { webdata } from "./webdata.js";
import { httpProbes } from "../probes/checks.js";
import { generatedChecks, type GenerationOptions } from "../generate/generated.js";

const APIS = { entitlements, webdata } satisfies Partial<Record<ApiName, KitApi>>;

/** An API the kit has checks for: a name of contract-core's registry with an entry in the kit's table. */
export type Service = keyof typeof APIS & ApiName;

/** The APIs the kit has checks for, in the order of contract-core's registry. */
export const SERVICES: Service[] = listApis()
  .map((api) => api.name)
  .filter((name): name is Service => Object.hasOwn(APIS, name));

/** The kit's entry for an API: its client, its checks, its generation profile. */
export function kitApi(service: Service): KitApi {
  if (!SERVICES.includes(service)) throw new Error(`the kit has no checks for ${service}; it has for ${SERVICES.join(", ")}`);
  return APIS[service];
}

/**
 * The checks a run performs, in order: the API's own checks and the HTTP probes of the level
 * (behaviour runs every one), then the generated checks when `generate` is given.
 */
export function listChecks(service: Service, level: Level, { contract = contractOf(service), generate }: { contract?: Contract; generate?: GenerationOptions } = {}): Check[] {
  const api = kitApi(service);
  const all = [...api.checks(contract), ...httpProbes(contract), ...(generate ? generatedChecks(contract, api.generation, generate) : [])];
  return all.filter((check) => check.generated || level === "behavior" || check.level === level);
}
