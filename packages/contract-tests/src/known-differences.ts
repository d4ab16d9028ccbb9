// The kit reads the known-differences format of contract-core (shared with the contract proxy); a
// list that is not one is the kit's usage error (exit 2).
import {
  KnownDifferences,
  KnownDifferencesError,
  loadKnownDifferences as load,
  parseKnownDifferences as parse,
  type KnownDifference,
} from "@api-contracts/contract-core";
import { asUsageError } from "./fixtures.js";

export { KnownDifferences, type KnownDifference };

/** Checks a parsed known-differences list, naming the first entry at fault. */
export function parseKnownDifferences(value: unknown, source = "the known differences"): KnownDifference[] {
  return asUsageError(KnownDifferencesError, () => parse(value, source));
}

/** Reads a known-differences file (JSON). */
export function loadKnownDifferences(file: string): KnownDifference[] {
  return asUsageError(KnownDifferencesError, () => load(file));
}
