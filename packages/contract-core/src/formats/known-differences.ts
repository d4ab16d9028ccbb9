// Differences an implementer has accepted, read from a JSON file that the contract-test kit and the
// contract proxy both take (`--known-differences <FILE.json>`): one format, one parser, one matcher.
import { isObject } from "../document/pointer.js";
import { readJsonFile } from "./files.js";

/**
 * A failure the implementer has accepted: the check `check` of `operation` failing with a reason
 * that contains `reason`, for the stated `why`. What `check` and the reason text are depends on the
 * tool (the kit: a check's name and its failure; the proxy: the direction and the error). Matching
 * is by plain substring, so it costs time linear in the reason whatever the file says.
 */
export interface KnownDifference {
  operation: string;
  check: string;
  reason: string;
  why: string;
}

/** A known-differences list that is not one: the message names the file and the entry at fault. */
export class KnownDifferencesError extends Error {
  override name = "KnownDifferencesError";
}

/** A known-differences file larger than this is refused: it is a list a person reads. */
export const KNOWN_DIFFERENCES_FILE_LIMIT = 1024 * 1024;

const FIELDS = ["operation", "check", "reason", "why"] as const;

/** Checks a parsed known-differences list, naming the first entry at fault. */
export function parseKnownDifferences(value: unknown, source = "the known differences"): KnownDifference[] {
  if (!Array.isArray(value)) throw new KnownDifferencesError(`${source} must be a JSON array of {operation, check, reason, why}`);
  return value.map((entry, index) => {
    if (!isObject(entry)) throw new KnownDifferencesError(`${source}: entry ${index} is not an object`);
    const extra = Object.keys(entry).filter((key) => !(FIELDS as readonly string[]).includes(key));
    if (extra.length > 0) throw new KnownDifferencesError(`${source}: entry ${index} has unknown member ${extra[0]}`);
    for (const field of FIELDS) {
      const text = entry[field];
      if (typeof text !== "string" || text.trim() === "") throw new KnownDifferencesError(`${source}: entry ${index} needs a non-empty string ${field}`);
    }
    return { operation: entry.operation as string, check: entry.check as string, reason: entry.reason as string, why: entry.why as string };
  });
}

/** Reads a known-differences file (JSON); errors name it as `--known-differences <file>`. */
export function loadKnownDifferences(file: string): KnownDifference[] {
  const named = `--known-differences ${file}`;
  return parseKnownDifferences(readJsonFile(file, named, KNOWN_DIFFERENCES_FILE_LIMIT, KnownDifferencesError), named);
}

/** Tells, for each failure, whether an accepted difference explains it, and which entries never matched. */
export class KnownDifferences {
  private readonly used = new Set<KnownDifference>();
  constructor(private readonly entries: readonly KnownDifference[]) {}

  /** The entry that explains this failure, if any. */
  explain(operation: string, check: string, reason: string): KnownDifference | undefined {
    const entry = this.entries.find((e) => e.operation === operation && e.check === check && reason.includes(e.reason));
    if (entry) this.used.add(entry);
    return entry;
  }

  /** Entries no failure matched: the difference is gone, and the entry can go too. */
  stale(): KnownDifference[] {
    return this.entries.filter((entry) => !this.used.has(entry));
  }
}
