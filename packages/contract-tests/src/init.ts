// `contract-test init`: a fixtures file for an implementer who has none yet. Every id the
// behaviour level needs is a placeholder the kit refuses to run with, and the file says what each
// must be, in the schema's own words (JSON has no comments: a member the format allows and the
// kit ignores carries them).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { counted, fixturesSchema, isObject, resolvePointer, type ApiName, type JsonObject } from "@api-contracts/contract-core";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { PLACEHOLDER } from "./fixtures.js";

/** The APIs the fixtures format has a section for: those whose checks name ids in a target. */
const sections = (): string[] => Object.entries(fixturesSchema().properties as Record<string, { $ref?: string }>).filter(([, section]) => section.$ref).map(([name]) => name);

const initUsage = () => `Usage: contract-test init --service <${sections().join("|")}> [--out <FILE.json>] [--force]

Writes a fixtures file (default fixtures.json) with a placeholder for every id the behavior level
needs and for the API key and, under "descriptions", what each must be. Replace each
"<fill in: ...>" with an id your server knows; the kit refuses to run while one is left. One file
holds both services: run it again with the other --service to add that section to the same file.
--force overwrites an existing file.`;

/** Where a command writes its lines and reads its environment. */
export interface CommandIo {
  out: (line: string) => void;
  err: (line: string) => void;
  env: Record<string, string | undefined>;
}

type Flags = NonNullable<ParseArgsConfig["options"]>;
/** The values of a command's flags (none takes several values). */
type FlagValues = Record<string, string | string[] | boolean | undefined>;

/** A command's flags (`--help`/`-h` added), or its exit code when it has nothing to run: 2 after a usage error, 0 after --help. */
export function readFlags(argv: string[], flags: Flags, command: string, usage: string, io: CommandIo): FlagValues | number {
  try {
    const options: Flags = { ...flags, help: { type: "boolean", short: "h" } };
    const { values } = parseArgs({ args: argv, strict: true, allowPositionals: false, options });
    if (!values.help) return values as FlagValues;
    io.out(usage);
    return 0;
  } catch (error) {
    io.err(`${command}: ${(error as Error).message}\n${usage}`);
    return 2;
  }
}

/** The schema of the fixtures section of `service` (where its `$ref` points). */
function sectionSchema(service: ApiName) {
  const schema = fixturesSchema();
  const { $ref } = (schema.properties as Record<string, { $ref: string }>)[service]!;
  return resolvePointer(schema, $ref.slice(1)) as { required?: string[]; properties: Record<string, { description?: string; examples?: unknown[] }> };
}

/** The fixtures file `init` writes for `service`, as an object. */
export function fixturesTemplate(service: ApiName): Record<string, unknown> {
  const section = sectionSchema(service);
  const members = section.required ?? Object.keys(section.properties);
  const values: Record<string, unknown> = {};
  const descriptions: Record<string, string> = {};
  for (const member of members) {
    const property = section.properties[member] ?? {};
    // A member whose schema suggests a value that works almost anywhere starts with it.
    const suggested = property.examples?.[0];
    values[member] = suggested ?? `<fill in: ${member}>`;
    descriptions[member] = `${property.description ?? ""}${suggested === undefined ? "" : ` Suggested: ${JSON.stringify(suggested)}; replace it if your server cannot use it.`}`.trim();
  }
  return {
    $comment:
      `Fixtures for contract-test --service ${service} --level behavior --fixtures <this file>, written by contract-test init. ` +
      `Replace every "<fill in: ...>" with an id your server knows; "descriptions" says what each must be. ` +
      `The kit refuses to run while a placeholder is left, and ignores members it does not know (such as these two). ` +
      `Format: @api-contracts/contract-tests/fixtures.schema.json. The API key comes from --api-key, CONTRACT_API_KEY or api_keys.`,
    descriptions: { [service]: descriptions, api_keys: { [service]: "A key your server accepts; --api-key or CONTRACT_API_KEY wins over it." } },
    [service]: values,
    api_keys: { [service]: `<fill in: api_keys.${service}>` },
  };
}

/** An existing fixtures file with the section of `service` added beside what it holds, or why it cannot be. */
function withSection(text: string, service: ApiName): JsonObject | string {
  let existing: unknown;
  try {
    existing = JSON.parse(text);
  } catch {
    return "exists and is not JSON";
  }
  if (!isObject(existing)) return "exists and is not a JSON object";
  if (existing[service] !== undefined) return `already has an "${service}" section`;
  const template = fixturesTemplate(service);
  const merged: JsonObject = { ...existing, [service]: template[service] };
  for (const member of ["descriptions", "api_keys"]) {
    const present = isObject(existing[member]) ? existing[member] : {};
    merged[member] = { ...(template[member] as JsonObject), ...present };
  }
  return merged;
}

/** Runs `contract-test init` and resolves to its exit code. */
export async function init(argv: string[], io: CommandIo): Promise<number> {
  const flags = { service: { type: "string" }, out: { type: "string" }, force: { type: "boolean" } } as const;
  const values = readFlags(argv, flags, "contract-test init", initUsage(), io);
  if (typeof values === "number") return values;
  const service = (values.service as string | undefined) ?? io.env.CONTRACT_SERVICE;
  if (!service || !sections().includes(service)) {
    io.err(`contract-test init: --service must be one of ${sections().join(", ")}, the APIs whose checks need fixtures${service ? ` (got "${service}")` : ""}\n${initUsage()}`);
    return 2;
  }
  const out = (values.out as string | undefined) ?? "fixtures.json";
  const adding = existsSync(out) && !values.force;
  const written = adding ? withSection(readFileSync(out, "utf8"), service) : fixturesTemplate(service);
  if (typeof written === "string") {
    io.err(`contract-test init: ${out} ${written}; choose another --out or pass --force to overwrite it`);
    return 2;
  }
  writeFileSync(out, `${JSON.stringify(written, null, 2)}\n`);
  const ids = Object.values(written[service] as JsonObject).filter((value) => typeof value === "string" && PLACEHOLDER.test(value)).length;
  const key = PLACEHOLDER.test(String((written.api_keys as JsonObject)[service])) ? ` and the API key (api_keys.${service})` : "";
  const done = adding ? `added the "${service}" section to ${out}` : `wrote ${out}`;
  io.out(`${done}: ${counted(ids, "id")}${key} to fill in, then run contract-test --service ${service} --base-url <URL> --level behavior --fixtures ${out}`);
  return 0;
}
