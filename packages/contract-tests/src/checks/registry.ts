import type { Check, Level } from "./types.js";
import { contractOf, type Contract, type Service } from "../judge.js";
import { entitlementsChecks } from "./entitlements.js";
import { webdataChecks } from "./webdata.js";
import { httpProbes } from "../probes/checks.js";

/** Each API's own checks, by its name in contract-core's registry: another API adds an entry (and its client in http.ts). */
const API_CHECKS: Record<Service, (contract: Contract) => Check[]> = { entitlements: entitlementsChecks, webdata: webdataChecks };

/** The checks a level runs for a service, in order: schema checks, behaviour checks, then the HTTP probes. */
export function listChecks(service: Service, level: Level, contract = contractOf(service)): Check[] {
  const all = [...API_CHECKS[service](contract), ...httpProbes(contract)];
  return all.filter((check) => level === "behavior" || check.level === level);
}

/** The APIs the kit has checks for. */
export const SERVICES = Object.keys(API_CHECKS) as Service[];
