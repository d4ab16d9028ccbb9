// What the formats that cross packages share: each ships its JSON Schema in schema/, each file is
// written by a person, bounded in size, and refused with one message naming the file and what to mend.
import { readFileSync, statSync } from "node:fs";
import { cached, type JsonObject } from "../document/pointer.js";

const schemas = new Map<string, JsonObject>();

/** A format's JSON Schema as shipped in `schema/` (and exported as `@api-contracts/contract-core/<name>`), read on first use. */
export function shippedSchema(name: "coverage.schema.json" | "faults.schema.json" | "fixtures.schema.json"): JsonObject {
  return cached(schemas, name, () => JSON.parse(readFileSync(new URL(`../../schema/${name}`, import.meta.url), "utf8")) as JsonObject);
}

/** Problems listed for one file; enough to mend it by hand. */
const MAX_PROBLEMS = 20;

/** The problems of one file on one line: the first twenty, and how many more. */
export function listProblems(problems: readonly string[]): string {
  const more = problems.length > MAX_PROBLEMS ? `; and ${problems.length - MAX_PROBLEMS} more` : "";
  return `${problems.slice(0, MAX_PROBLEMS).join("; ")}${more}`;
}

/**
 * Reads a JSON file given on a command line (`named`: `--faults f.json`) of at most `limit` bytes;
 * a file too large, unreadable or not JSON is a `Refusal` naming it.
 */
export function readJsonFile(file: string, named: string, limit: number, Refusal: new (message: string) => Error): unknown {
  let text: string;
  try {
    if (statSync(file).size > limit) throw new Refusal(`${named} is larger than ${limit} bytes`);
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (error instanceof Refusal) throw error;
    throw new Refusal(`${named} cannot be read: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Refusal(`${named} is not JSON: ${(error as Error).message}`);
  }
}
