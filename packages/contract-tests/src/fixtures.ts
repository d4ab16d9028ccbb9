import { readFileSync } from "node:fs";
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import type { Service } from "./judge.js";
import type { Fixtures } from "./generated/fixtures.js";

export type { Fixtures, EntitlementsFixtures, WebdataFixtures, ApiKeys } from "./generated/fixtures.js";

/** Bad options or fixtures: the run cannot start (exit code 2). */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The format of a fixtures file, shipped as `@api-contracts/contract-tests/fixtures.schema.json`. */
export const fixturesSchema = JSON.parse(readFileSync(new URL("../schema/fixtures.schema.json", import.meta.url), "utf8")) as Record<string, unknown>;

/** The form of a value `contract-test init` writes for an id the implementer must fill in. */
export const PLACEHOLDER = /^<fill in: [^>]*>$/;

/** Members of the service sections that still hold an init placeholder, as "section.member". */
function placeholdersLeft(fixtures: Fixtures): string[] {
  const sections = Object.entries(fixturesSchema.properties as Record<string, { $ref?: string }>).filter(([, schema]) => schema.$ref).map(([name]) => name);
  return sections.flatMap((section) =>
    Object.entries((fixtures as Record<string, Record<string, unknown> | undefined>)[section] ?? {})
      .filter(([, value]) => typeof value === "string" && PLACEHOLDER.test(value))
      .map(([member]) => `${section}.${member}`),
  );
}

/** Enough to mend a file by hand; a file with more problems is not worth listing in full. */
const MAX_PROBLEMS = 20;

let validator: ReturnType<Ajv2020["compile"]> | undefined;

function describe(error: ErrorObject): string {
  const path = error.instancePath.split("/").slice(1).map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"));
  const member = path.join(".");
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  if (error.keyword === "required") return `${path.length ? `"${member}" section` : "the file"} lacks "${params.missingProperty}"`;
  if (error.keyword === "additionalProperties") return `"${member}" section has "${params.additionalProperty}", which is not part of the format`;
  return `${member ? `member "${member}"` : "the file"} ${error.message ?? "is invalid"}`;
}

/**
 * Checks a fixtures object against the format and hands it back typed. Throws a UsageError
 * naming each missing or wrong member (at most twenty), or each id still left as the placeholder
 * `contract-test init` wrote.
 */
export function checkFixtures(value: unknown, source = "fixtures"): Fixtures {
  validator ??= new Ajv2020({ allErrors: true, strict: true }).compile(fixturesSchema);
  if (validator(value)) {
    const left = placeholdersLeft(value as Fixtures);
    if (left.length === 0) return value as Fixtures;
    throw new UsageError(`${source}: ${left.map((member) => `"${member}"`).join(", ")} still ${left.length === 1 ? "holds its placeholder" : "hold their placeholders"} from contract-test init; replace each with an id your server knows`);
  }
  const problems = (validator.errors ?? []).map(describe);
  const shown = problems.slice(0, MAX_PROBLEMS).join("; ");
  const more = problems.length > MAX_PROBLEMS ? `; and ${problems.length - MAX_PROBLEMS} more` : "";
  throw new UsageError(`${source}: ${shown}${more}`);
}

export function readFixturesFile(file: string): Fixtures {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read fixtures file ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`fixtures file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  return checkFixtures(value, `fixtures file ${file}`);
}

/** Throws a UsageError when the behaviour level lacks the section of the service under test. */
export function requireServiceFixtures(fixtures: Fixtures | undefined, service: Service): void {
  if (!fixtures) throw new UsageError(`--level behavior needs --fixtures with an "${service}" section`);
  if (!fixtures[service]) throw new UsageError(`--level behavior needs an "${service}" section in the fixtures`);
}
