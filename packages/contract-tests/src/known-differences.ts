// The kit reads the known-differences format of contract-core (shared with the contract proxy); a
// list that is not one is the kit's usage error (exit 2).
import {
  KnownDifferences,
  KnownDifferencesError,
  loadKnownDifferences as load,
  parseKnownDifferences as parse,
  type KnownDifference,
} from "@api-contracts/contract-core";
import { UsageError } from "./fixtures.js";

export { KnownDifferences, type KnownDifference };

function asUsageError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof KnownDifferencesError) throw new UsageError(error.message);
    throw error;
  }
}

/** Checks a parsed known-differences list, naming the first entry at fault. */
export function parseKnownDifferences(value: unknown, source = "the known differences"): KnownDifference[] {
  return asUsageError(() => parse(value, source));
}

/** Reads a known-differences file (JSON). */
export function loadKnownDifferences(file: string): KnownDifference[] {
  return asUsageError(() => load(file));
}
