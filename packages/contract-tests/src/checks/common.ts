// The checks every API gets from its description and its facts, and the pieces the API-specific
// checks are written with. A check that expects a refusal asks the API's decision (contract-core's)
// what the request it sent must get: no key, another scheme, a key never issued, malformed JSON, a
// body or a parameter that breaks a rule.
import { WRONG_SCHEME_CREDENTIAL, type CallOptions } from "../http.js";
import type { Contract } from "../judge.js";
import type { Fixtures } from "../fixtures.js";
import { viewOf, type SchemaView } from "../generate/schema-view.js";
import { exampleOf, incomingOf, type GeneratedRequest } from "../generate/arbitraries.js";
import { expectAnswer, expectDecided, fail, requireAnswer, type Check, type CheckContext, type Hints, type Level } from "./types.js";

type Options = (ctx: CheckContext) => CallOptions | Promise<CallOptions>;
type Body = Record<string, unknown>;

/**
 * Asks a Prism mock for an error answer it cannot derive from state. RFC 7240 lets any other
 * server ignore the preference, so a real implementation is judged on its own decision.
 */
export function preferStatus(status: number): Record<string, string> {
  return { Prefer: `code=${status}` };
}

/** A check written out by hand: its `run` decides the outcome. */
export function handCheck(operation: string, name: string, level: Level, what: string, run: Check["run"]): Check {
  return { operation, name, level, what, run };
}

export function successCheck(operation: string, what: string, options: Options, name = "success"): Check {
  return statusCheck(operation, name, "schema", "2xx", what, options);
}

export function statusCheck(operation: string, name: string, level: Level, status: number | "2xx", what: string, options: Options): Check {
  return handCheck(operation, name, level, what, async (ctx) => expectAnswer(await ctx.caller.call(operation, await options(ctx)), status));
}

/** A request the API refuses: its answer must be the one the API's decision gives it (see `expectDecided`). */
export function refusalCheck(operation: string, name: string, level: Level, what: string, options: Options): Check {
  return handCheck(operation, name, level, what, async (ctx) => expectDecided(ctx, await ctx.caller.call(operation, await options(ctx))));
}

/**
 * An id the server cannot know gives 404 with the documented body; at behaviour level the body must
 * also name the problem as documented (`member` equal to `value`).
 */
export function unknownIdCheck(operation: string, name: string, what: string, options: Options, documented: { member: string; value: string }): Check {
  const { member, value } = documented;
  const status = 404;
  return handCheck(operation, name, "schema", `${what} gives ${status} with the documented body (${member} ${JSON.stringify(value)} at behavior level)`, async (ctx) => {
    const call = await options(ctx);
    const result = await ctx.caller.call(operation, { ...call, headers: { ...call.headers, ...preferStatus(status) } });
    const outcome = expectAnswer(result, status);
    if (!outcome.ok || ctx.level !== "behavior") return outcome;
    const said = requireAnswer(result, status, what)[member];
    return said === value ? outcome : fail(`expected ${member} ${JSON.stringify(value)}, got ${JSON.stringify(said)}`);
  });
}

/** A query or header value outside the parameter's schema gets the API's refusal, on top of a request it serves. */
export function badParameterCheck(contract: Contract, operation: string, location: "query" | "header", param: string, value: string, base: Options = () => ({})): Check[] {
  const schema = contract.parameter(operation, location, param);
  if (!schema || contract.accepts(schema, value)) return [];
  const where = location === "query" ? "query" : "headers";
  return [
    refusalCheck(operation, `${location}-invalid-${param}`, "schema", `${location} ${param}: ${value} gets the API's refusal with the documented body`, async (ctx) => {
      const valid = await base(ctx);
      return { ...valid, [where]: { ...valid[where], [param]: value } };
    }),
  ];
}

interface BodyMutation {
  name: string;
  what: string;
  apply(body: Body): Body;
}

const WRONG_VALUE_FOR_TYPE: Record<string, unknown> = {
  string: 12345,
  number: "not-a-number",
  integer: "not-an-integer",
  boolean: "not-a-boolean",
  object: "not-an-object",
  array: "not-an-array",
};

/** The first JSON type a member's schema allows other than null: the one a wrong value replaces. */
const firstType = (member: SchemaView) => member.types?.find((type) => type !== "null");

/**
 * Bodies that break the request schema once: each required member dropped, one member of the wrong
 * type, one enum member outside its enum, and an unknown member when the schema forbids them.
 */
function bodyMutations(contract: Contract, pointer: string): BodyMutation[] {
  // Top-level members, those declared in `allOf` branches included.
  const { properties, required, closed } = viewOf(contract.doc, [pointer]);
  const member = (key: string) => viewOf(contract.doc, properties.get(key) ?? []);
  const mutations: BodyMutation[] = [...required].map((key) => ({ name: `missing-${key}`, what: `a body without the required member ${key}`, apply: ({ [key]: _dropped, ...rest }: Body) => rest }));
  const typed = [...required, ...properties.keys()].find((key) => (firstType(member(key)) ?? "") in WRONG_VALUE_FOR_TYPE);
  if (typed) mutations.push({ name: `wrong-type-${typed}`, what: `${typed} of the wrong type`, apply: (body) => ({ ...body, [typed]: WRONG_VALUE_FOR_TYPE[firstType(member(typed))!] }) });
  const enumerated = [...properties.keys()].find((name) => member(name).enum?.some((value) => typeof value === "string"));
  if (enumerated) mutations.push({ name: `bad-enum-${enumerated}`, what: `${enumerated} outside its enum`, apply: (body) => ({ ...body, [enumerated]: "not-a-documented-value" }) });
  if (closed) mutations.push({ name: "unknown-member", what: "an undocumented member (unknown_member), which the contract forbids,", apply: (body) => ({ ...body, unknown_member: true }) });
  return mutations;
}

/**
 * The checks every API gets, per operation, on top of a small request it serves (made from its
 * description; the fixtures' values where `hints` name them): without a key, with another scheme, with
 * a key never issued (behaviour level), a body that is not JSON, bodies that break the schema once,
 * and a bad value of each parameter the facts check early with a refusal of its own. Each is made
 * only where the API's decision refuses the request, and expects the answer that decision gives.
 */
export function genericChecks(contract: Contract, hints: (fixtures: Fixtures | undefined) => Hints): Check[] {
  const checks: Check[] = [];
  const { core } = contract;
  for (const operation of contract.listOperations()) {
    const base = exampleOf(contract, operation);
    const incoming = incomingOf(operation, base, core.api.key.prefix);
    const refused = (change: Partial<typeof incoming>) => core.refusalOf(core.decide({ ...incoming, ...change }));
    const on = (change: (request: GeneratedRequest) => CallOptions) => (ctx: CheckContext) => change(exampleOf(contract, operation, hints(ctx.fixtures)));
    const check = (name: string, level: Level, what: string, status: number, change: (request: GeneratedRequest) => CallOptions) =>
      checks.push(refusalCheck(operation.operationId, name, level, `${what} gives ${status} with the documented body`, on(change)));
    const { authorization: _key, ...keyless } = incoming.headers;
    const unauthorized = core.decide({ ...incoming, headers: keyless }).refusal?.kind === "unauthorized";
    if (unauthorized) {
      const status = refused({ headers: keyless })!.status;
      check("auth-missing", "schema", "no Authorization header", status, (request) => ({ ...request, auth: "none" }));
      // A service that reads a key whatever the scheme (Firecrawl takes the second word) refuses a
      // made-up one only for being unknown: a server that knows no keys (a mock) serves it.
      const schemeRefused = core.decide({ ...incoming, headers: { ...keyless, authorization: WRONG_SCHEME_CREDENTIAL } }).refusal?.kind === "unauthorized";
      check("auth-wrong-scheme", schemeRefused ? "schema" : "behavior", "a Basic instead of a Bearer credential", status, (request) => ({ ...request, auth: "wrong-scheme" }));
      check("auth-unknown-key", "behavior", "a Bearer key the server never issued", status, (request) => ({ ...request, auth: "invalid-key" }));
    }
    const bodySchema = contract.requestBodySchema(operation.operationId);
    if (bodySchema) {
      const json = { ...incoming.headers, "content-type": "application/json" };
      const malformed = refused({ body: '{"truncated": ', headers: json });
      if (malformed) check("malformed-json", "schema", "a body that is not valid JSON", malformed.status, (request) => ({ ...request, rawBody: '{"truncated": ' }));
      const body = (base.body ?? {}) as Body;
      for (const mutation of bodyMutations(contract, bodySchema)) {
        const answer = refused({ body: JSON.stringify(mutation.apply(body)), headers: json });
        if (answer) check(`invalid-body-${mutation.name}`, "schema", mutation.what, answer.status, (request) => ({ ...request, body: mutation.apply((request.body ?? {}) as Body) }));
      }
    }
    for (const early of core.api.requests.checks) {
      if (typeof early !== "object") continue;
      for (const named of early.parameters) {
        const [location, name] = named.split(" ", 2) as ["header" | "query" | "path", string];
        // A path value is an id the API's own checks already try in its wrong form (`id-wrong-format`).
        if (location === "path") continue;
        const parameter = operation.parameters.find((p) => p.in === location && p.name.toLowerCase() === name.toLowerCase());
        if (parameter) checks.push(...badParameterCheck(contract, operation.operationId, location, parameter.name, "not-a-valid-value", on((request) => request)));
      }
    }
  }
  return checks;
}
