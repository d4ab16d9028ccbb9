// The fixtures format: ids in a target that behaviour checks act on, and the API keys to use.
// The kit reads it (--fixtures) and the reference server writes and reads it, so it is defined
// here, once, with its JSON Schema and its parser.
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { unescapePointer, type JsonObject } from "../document/pointer.js";
import type { Fixtures } from "../generated/fixtures.js";
import { listProblems, shippedSchema } from "./files.js";

export type { Fixtures, EntitlementsFixtures, WebdataFixtures, ApiKeys } from "../generated/fixtures.js";

/** A fixtures object that is not of the format, or still holds a placeholder; the message names each member at fault. */
export class FixturesFormatError extends Error {
  override name = "FixturesFormatError";
}

/** The format's JSON Schema, shipped as `@api-contracts/contract-core/fixtures.schema.json` (read on first use). */
export function fixturesSchema(): JsonObject {
  return shippedSchema("fixtures.schema.json");
}

/** The form of a value `contract-test init` writes for an id the implementer must fill in. */
export const PLACEHOLDER = /^<fill in: [^>]*>$/;

/** Members of the service sections that still hold an init placeholder, as "section.member". */
function placeholdersLeft(fixtures: Fixtures): string[] {
  const sections = Object.entries(fixturesSchema().properties as Record<string, { $ref?: string }>).filter(([, section]) => section.$ref).map(([name]) => name);
  return sections.flatMap((section) =>
    Object.entries((fixtures as Record<string, Record<string, unknown> | undefined>)[section] ?? {})
      .filter(([, value]) => typeof value === "string" && PLACEHOLDER.test(value))
      .map(([member]) => `${section}.${member}`),
  );
}

let validator: ValidateFunction | undefined;

function describe(error: ErrorObject): string {
  const path = error.instancePath.split("/").slice(1).map(unescapePointer);
  const member = path.join(".");
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  if (error.keyword === "required") return `${path.length ? `"${member}" section` : "the file"} lacks "${params.missingProperty}"`;
  if (error.keyword === "additionalProperties") return `"${member}" section has "${params.additionalProperty}", which is not part of the format`;
  return `${member ? `member "${member}"` : "the file"} ${error.message ?? "is invalid"}`;
}

/**
 * Checks a fixtures object against the format and hands it back typed. Throws a
 * FixturesFormatError naming each missing or wrong member (at most twenty), or each id still left
 * as the placeholder `contract-test init` wrote.
 */
export function parseFixtures(value: unknown, source = "fixtures"): Fixtures {
  validator ??= new Ajv2020({ allErrors: true, strict: true }).compile(fixturesSchema());
  if (validator(value)) {
    const left = placeholdersLeft(value as Fixtures);
    if (left.length === 0) return value as Fixtures;
    throw new FixturesFormatError(`${source}: ${left.map((member) => `"${member}"`).join(", ")} still ${left.length === 1 ? "holds its placeholder" : "hold their placeholders"} from contract-test init; replace each with an id your server knows`);
  }
  throw new FixturesFormatError(`${source}: ${listProblems((validator.errors ?? []).map(describe))}`);
}
