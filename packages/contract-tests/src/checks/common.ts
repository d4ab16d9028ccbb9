import type { CallOptions } from "../http.js";
import type { Contract } from "../judge.js";
import { viewOf, type SchemaView } from "../generate/schema-view.js";
import { expectAnswer, fail, requireAnswer, type Check, type CheckContext, type Level } from "./types.js";

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
  return {
    operation,
    name,
    level,
    what,
    async run(ctx) {
      return expectAnswer(await ctx.caller.call(operation, await options(ctx)), status);
    },
  };
}

/**
 * An id the server cannot know gives 404 with the documented body; at behaviour level the body must
 * also name the problem as documented (`member` equal to `value`).
 */
export function unknownIdCheck(operation: string, name: string, what: string, options: Options, documented: { member: string; value: string }): Check {
  const { member, value } = documented;
  const status = 404;
  return {
    operation,
    name,
    level: "schema",
    what: `${what} gives ${status} with the documented body (${member} ${JSON.stringify(value)} at behavior level)`,
    async run(ctx) {
      const call = await options(ctx);
      const result = await ctx.caller.call(operation, { ...call, headers: { ...call.headers, ...preferStatus(status) } });
      const outcome = expectAnswer(result, status);
      if (!outcome.ok || ctx.level !== "behavior") return outcome;
      const said = requireAnswer(result, status, what)[member];
      return said === value ? outcome : fail(`expected ${member} ${JSON.stringify(value)}, got ${JSON.stringify(said)}`);
    },
  };
}

/** 401 with the documented body without credentials and with a foreign scheme; with an unknown key at behaviour level. */
export function authChecks(operation: string, options: Options): Check[] {
  const withAuth = (auth: CallOptions["auth"]): Options => async (ctx) => ({ ...(await options(ctx)), auth });
  return [
    statusCheck(operation, "auth-missing", "schema", 401, "no Authorization header gives 401 with the documented body", withAuth("none")),
    statusCheck(operation, "auth-wrong-scheme", "schema", 401, "a Basic instead of a Bearer credential gives 401 with the documented body", withAuth("wrong-scheme")),
    statusCheck(operation, "auth-unknown-key", "behavior", 401, "a Bearer key the server never issued gives 401 with the documented body", withAuth("invalid-key")),
  ];
}

interface Mutation {
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
 * Derives invalid bodies from the request schema: each required member dropped, one member of
 * the wrong type, one enum member with a value outside the enum, and an unknown member when the
 * schema forbids extra members. A derived body that the schema would still accept is discarded,
 * so every remaining check sends a body the contract says must be refused.
 */
export function invalidBodyChecks(contract: Contract, operation: string, validBody: (ctx: CheckContext | undefined) => Body, unknownMember: string): Check[] {
  const request = contract.requestBodySchema(operation);
  if (!request) return [];
  // Top-level members, those declared in `allOf` branches included.
  const { properties, required, closed } = viewOf(contract.doc, [request]);
  const member = (key: string) => viewOf(contract.doc, properties.get(key) ?? []);
  const mutations: Mutation[] = [];
  for (const key of required) {
    mutations.push({
      name: `missing-${key}`,
      what: `a body without the required member ${key} gives 400 with the documented body`,
      apply: ({ [key]: _dropped, ...rest }) => rest,
    });
  }
  const typed = [...required, ...properties.keys()].find((key) => (firstType(member(key)) ?? "") in WRONG_VALUE_FOR_TYPE);
  if (typed) {
    const wrong = WRONG_VALUE_FOR_TYPE[firstType(member(typed))!];
    mutations.push({
      name: `wrong-type-${typed}`,
      what: `${typed} of the wrong type gives 400 with the documented body`,
      apply: (body) => ({ ...body, [typed]: wrong }),
    });
  }
  const enumerated = [...properties.keys()].find((name) => member(name).enum?.some((value) => typeof value === "string"));
  if (enumerated) {
    mutations.push({
      name: `bad-enum-${enumerated}`,
      what: `${enumerated} outside its enum gives 400 with the documented body`,
      apply: (body) => ({ ...body, [enumerated]: "not-a-documented-value" }),
    });
  }
  if (closed) {
    mutations.push({
      name: "unknown-member",
      what: `an undocumented member (${unknownMember}) gives 400, as the contract forbids extra members`,
      apply: (body) => ({ ...body, [unknownMember]: true }),
    });
  }
  const sample = validBody(undefined);
  return mutations
    .filter((mutation) => !contract.accepts(request, mutation.apply(sample)))
    .map((mutation) => ({
      operation,
      name: `invalid-body-${mutation.name}`,
      level: "schema" as const,
      what: mutation.what,
      async run(ctx: CheckContext) {
        return expectAnswer(await ctx.caller.call(operation, { body: mutation.apply(validBody(ctx)) }), 400);
      },
    }));
}

/** A body that is not JSON at all gives 400 with the documented body. */
export function malformedJsonCheck(operation: string): Check {
  return statusCheck(operation, "malformed-json", "schema", 400, "a body that is not valid JSON gives 400 with the documented body", () => ({
    rawBody: '{"truncated": ',
  }));
}

/**
 * A query or header value outside the parameter's schema gives 400. At behaviour level the error
 * body must also carry `code` when one is given (a mock only knows the documented examples).
 */
export function badParameterCheck(
  contract: Contract,
  operation: string,
  location: "query" | "header",
  param: string,
  value: string,
  { base = () => ({}), code }: { base?: Options; code?: string } = {},
): Check[] {
  const schema = contract.parameter(operation, location, param);
  if (!schema || contract.accepts(schema, value)) return [];
  return [
    {
      operation,
      name: `${location}-invalid-${param}`,
      level: "schema",
      what: `${location} ${param}: ${value} gives 400 with the documented body${code ? ` (code ${code} at behavior level)` : ""}`,
      async run(ctx) {
        const valid = await base(ctx);
        const result = await ctx.caller.call(
          operation,
          location === "query" ? { ...valid, query: { ...valid.query, [param]: value } } : { ...valid, headers: { ...valid.headers, [param]: value } },
        );
        const outcome = expectAnswer(result, 400);
        if (!outcome.ok || !code || ctx.level !== "behavior") return outcome;
        const body = requireAnswer(result, 400, `${param}: ${value}`);
        return body.code === code ? outcome : fail(`expected code ${code}, got ${JSON.stringify(body.code)}`);
      },
    },
  ];
}
