import { readFileSync } from "node:fs";
import { FixturesFormatError, fixturesSchema, parseFixtures, type ApiName, type Fixtures } from "@api-contracts/contract-core";

export { PLACEHOLDER, type Fixtures, type EntitlementsFixtures, type WebdataFixtures, type ApiKeys } from "@api-contracts/contract-core";

/** Bad options or fixtures: the run cannot start (exit code 2). */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * Checks a fixtures object against the format (contract-core's) and hands it back typed. Throws a
 * UsageError naming each missing or wrong member (at most twenty), or each id still left as the
 * placeholder `contract-test init` wrote.
 */
export function checkFixtures(value: unknown, source = "fixtures"): Fixtures {
  return asUsageError(FixturesFormatError, () => parseFixtures(value, source));
}

/** What `read` returns; contract-core's error for a file format it refuses becomes the kit's UsageError (exit 2). */
export function asUsageError<T>(formatError: new (message: string) => Error, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw error instanceof formatError ? new UsageError(error.message) : error;
  }
}

/** A fixtures file's JSON, unchecked (`checkFixtures` checks it). */
export function readFixturesFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read fixtures file ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`fixtures file ${file} is not valid JSON: ${(error as Error).message}`);
  }
}

/** Throws a UsageError when the behaviour level lacks the section of the service under test (of an API the format has one for). */
export function requireServiceFixtures(fixtures: Fixtures | undefined, service: ApiName): void {
  if (!Object.hasOwn(fixturesSchema().properties as object, service)) return;
  if (!fixtures) throw new UsageError(`--level behavior needs --fixtures with an "${service}" section`);
  if (!fixtures[service]) throw new UsageError(`--level behavior needs an "${service}" section in the fixtures`);
}
