import { readFileSync } from "node:fs";
import type { Service } from "./judge.js";

export interface EntitlementsFixtures {
  customer_id: string;
  /** A consumable metered feature with a finite balance of at least 100 and no overage. */
  metered_feature_id: string;
  /** A boolean feature in the customer's plan. */
  boolean_feature_id: string;
  unlimited_feature_id: string;
  /** A boolean feature that is not in the customer's plan. */
  denied_feature_id: string;
  /** A customer id the target does not know. */
  unknown_customer_id: string;
}

export interface WebdataFixtures {
  monitor_id: string;
  crawl_url: string;
}

/** Ids in the target that behaviour checks act on, and the keys to use when none is given. */
export interface Fixtures {
  entitlements?: EntitlementsFixtures;
  webdata?: WebdataFixtures;
  api_keys?: Partial<Record<Service, string>>;
}

/** Bad options or fixtures: the run cannot start (exit code 2). */
export class UsageError extends Error {
  override name = "UsageError";
}

const REQUIRED: Record<Service, string[]> = {
  entitlements: [
    "customer_id",
    "metered_feature_id",
    "boolean_feature_id",
    "unlimited_feature_id",
    "denied_feature_id",
    "unknown_customer_id",
  ],
  webdata: ["monitor_id", "crawl_url"],
};

export function readFixturesFile(file: string): Fixtures {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read fixtures file ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as Fixtures;
  } catch (error) {
    throw new UsageError(`fixtures file ${file} is not valid JSON: ${(error as Error).message}`);
  }
}

/** Throws a UsageError naming each member the behaviour level needs but the fixtures lack. */
export function requireServiceFixtures(fixtures: Fixtures | undefined, service: Service): void {
  if (!fixtures) throw new UsageError(`--level behavior needs --fixtures with an "${service}" section`);
  const section = fixtures[service] as Record<string, unknown> | undefined;
  const missing = REQUIRED[service].filter((key) => typeof section?.[key] !== "string" || section[key] === "");
  if (missing.length) {
    throw new UsageError(`fixtures "${service}" section lacks ${missing.map((key) => `"${key}"`).join(", ")}`);
  }
}
