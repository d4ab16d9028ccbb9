import { describe, expect, it } from "vitest";
import {
  ContractErrors,
  ERROR_LIMIT,
  OpenApiValidators,
  entitlementsWording,
  getApi,
  hasSchemalessObject,
  listApis,
  pathRegexProblem,
  loadBundle,
  refusal,
  registerApi,
  walkOperations,
  webdataWording,
  type ErrorWording,
  type JsonObject,
  type Problem,
  type RequestParts,
} from "../src/index.js";
import { petStore } from "./fixture.js";

const request = (overrides: Partial<RequestParts>): RequestParts => ({ path: "/pets", query: {}, headers: { "x-trace-id": "abc" }, body: undefined, ...overrides });

/** A description whose schema carries both kinds of x-rules, used in a body and a nested object. */
function ruled(): JsonObject {
  const doc = petStore();
  const schemas = (doc.components as { schemas: Record<string, JsonObject> }).schemas;
  schemas.Visit = {
    type: "object",
    properties: { at: { type: "integer" }, seen: { type: "string", format: "date-time" }, waitFor: { type: "integer" }, timeout: { type: "integer" } },
    "x-rules": [
      { rule: "time-window", member: "at", encoding: "epoch-milliseconds", maxAheadMs: 0, maxBehindMs: 1000, description: "at may not lie in the future nor more than a second back." },
      { rule: "time-window", member: "seen", encoding: "date-time", maxAheadMs: 0, description: "seen may not lie in the future." },
      { rule: "at-most-fraction", member: "waitFor", of: "timeout", fraction: 0.5, ofDefault: 60000, description: "waitFor is at most half of timeout." },
      { rule: "no-schemaless-object", member: "shape", description: "shape lists the members of every open object." },
    ],
  };
  (schemas.NewPet!.properties as JsonObject).visits = { type: "array", items: { $ref: "#/components/schemas/Visit" } };
  return doc;
}

const NOW = Date.UTC(2026, 0, 1);

describe("x-rules", () => {
  const validators = new OpenApiValidators(ruled(), { now: () => NOW });
  const visit = validators.component("Visit");

  it("time-window: a time after now, or further back than allowed, fails with the rule's description", () => {
    expect(visit({ at: NOW })).toBe(true);
    expect(visit({ at: NOW - 1000 })).toBe(true);
    expect(visit({ at: NOW + 1 })).toBe(false);
    expect(visit.errors).toEqual([
      expect.objectContaining({ keyword: "x-rules", instancePath: "/at", params: { rule: "time-window", member: "at" }, message: "at may not lie in the future nor more than a second back." }),
    ]);
    expect(visit({ at: NOW - 1001 })).toBe(false);
  });

  it("no-schemaless-object: an open object schema without properties fails at any depth, not inside a $ref object", () => {
    const open = { type: "object", additionalProperties: true };
    expect(visit({ shape: { type: "object", properties: { a: { type: "string" } }, additionalProperties: true } })).toBe(true);
    expect(visit({ shape: { type: "object", patternProperties: { "^x": {} }, additionalProperties: true } })).toBe(true);
    expect(visit({ shape: { $ref: "#/$defs/o", $defs: { o: open } } })).toBe(true);
    expect(visit({ shape: { anyOf: [{ type: "string" }, { type: "array", items: open }] } })).toBe(false);
    expect(visit.errors).toEqual([expect.objectContaining({ keyword: "x-rules", instancePath: "/shape", params: { rule: "no-schemaless-object", member: "shape" } })]);
    expect(visit({ shape: open })).toBe(false);
  });

  it("no-schemaless-object: a schema nested 200000 deep is judged without exhausting the stack", () => {
    let deep: unknown = { type: "object", additionalProperties: true };
    for (let i = 0; i < 200_000; i++) deep = i % 2 ? { items: deep } : [deep];
    expect(() => hasSchemalessObject(deep)).not.toThrow();
    expect(hasSchemalessObject(deep)).toBe(true);
    expect(visit({ shape: { properties: { inner: deep } } })).toBe(false);
  });

  it("time-window: date-time strings are judged by the instant they name", () => {
    expect(visit({ seen: "2025-12-31T23:59:59Z" })).toBe(true);
    expect(visit({ seen: "2026-01-01T00:00:01Z" })).toBe(false);
  });

  it("at-most-fraction: against the other member, or its default when it is absent", () => {
    expect(visit({ waitFor: 500, timeout: 1000 })).toBe(true);
    expect(visit({ waitFor: 501, timeout: 1000 })).toBe(false);
    expect(visit({ waitFor: 30000 })).toBe(true);
    expect(visit({ waitFor: 30001 })).toBe(false);
  });

  it("a rule applies only when its member is present", () => {
    expect(visit({})).toBe(true);
  });

  it("is enforced at every depth where the schema is used, with the member's path", () => {
    const errors = validators.request("POST", "/pets").validate(request({ body: { name: "Rex", visits: [{ at: NOW }, { at: NOW + 5 }] } }));
    expect(errors).toEqual([{ in: "body", path: ["visits", 1, "at"], keyword: "x-rules", params: { rule: "time-window", member: "at" }, message: "at may not lie in the future nor more than a second back." }]);
  });

  it("now comes from the injected clock", () => {
    const later = new OpenApiValidators(ruled(), { now: () => NOW + 10 });
    expect(later.component("Visit")({ at: NOW + 5 })).toBe(true);
  });

  it("an unknown rule kind fails compilation instead of switching the rule off", () => {
    const doc = ruled();
    (doc.components as { schemas: Record<string, JsonObject> }).schemas.Visit!["x-rules"] = [{ rule: "time-windw", member: "at", description: "typo" }];
    expect(() => new OpenApiValidators(doc).component("Visit")).toThrow(/unknown rule kind 'time-windw'/);
  });
});

describe("path-regex: a pattern both Firecrawl's crawler (Rust regex, Unicode off) and a JavaScript RegExp compile", () => {
  it.each([
    ["(?=a)", /look-around/],
    ["(?<!a)b", /look-around/],
    ["(a)\\1", /backreferences/],
    ["\\k<name>", /unrecognized escape/],
    ["\\p{L}", /Unicode not allowed/],
    ["\\PL", /Unicode not allowed/],
    ["[é]", /Unicode not allowed/],
    ["[\\u00e9]", /Unicode not allowed/],
    ["[\\x{e9}]", /Unicode not allowed/],
    ["(?i)blog", /inline flags/],
    ["(?i:blog)", /inline flags/],
    ["/api/{id}", /counted repetition/],
    ["\\e", /unrecognized escape/],
    ["[\\b]", /in character class/],
    ["(?<a>x)|(?<a>y)", /duplicate capture group name/],
    ["[^]", /unclosed character class/],
    ["(?P<a>x)", /Invalid regular expression/],
    ["a\\", /incomplete escape/],
  ])("%s is refused", (pattern, reason) => {
    expect(pathRegexProblem(pattern)).toMatch(reason);
  });

  it.each(["^/blog/.*$", "[a-z]+", "^/über/\\d+", "[\\xe9]", "^/docs\\-v[0-9]{1,2}/", "[[:alpha:]]+", "[]a]", "(?<slug>[\\w-]+)\\.html", "\\b{start}x", "(?:blog|docs)$"])("%s is accepted", (pattern) => {
    expect(pathRegexProblem(pattern)).toBeUndefined();
  });

  it("a list member is refused at its own pointer when any of its patterns is", () => {
    const doc = petStore();
    const schemas = (doc.components as { schemas: Record<string, JsonObject> }).schemas;
    schemas.Filter = { type: "object", properties: { paths: { type: "array", items: { type: "string" } } }, "x-rules": [{ rule: "path-regex", member: "paths", description: "paths must compile in both engines." }] };
    const filter = new OpenApiValidators(doc).component("Filter");
    expect(filter({ paths: ["^/blog/.*$", "[a-z]+"] })).toBe(true);
    expect(filter({ paths: ["^/blog/.*$", "(?=a)"] })).toBe(false);
    expect(filter.errors).toEqual([expect.objectContaining({ keyword: "x-rules", instancePath: "/paths", params: { rule: "path-regex", member: "paths" }, message: "paths must compile in both engines." })]);
  });
});

describe("bounded validation", () => {
  const pets = new OpenApiValidators(petStore());
  const create = pets.request("POST", "/pets");

  it("reports at most 20 problems for a body with over a thousand of them", () => {
    // Small enough to be checked in full, so that every problem is found before the list is cut.
    const toys = Array.from({ length: 1_500 }, () => ({}));
    const errors = create.validate(request({ body: { name: "Rex", toys } }));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.length).toBe(20);
    expect(errors[0]).toMatchObject({ in: "body", path: ["toys", 0, "label"], keyword: "required" });
  });

  it("a 2 MB array of wrong items gives a short list and no stack overflow", () => {
    const toys = Array.from({ length: 1024 * 1024 }, () => 1);
    const errors = create.validate(request({ body: { name: "Rex", toys } }));
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(errors.length).toBeLessThanOrEqual(ERROR_LIMIT);
    expect(create.body!.errors!.length).toBeLessThanOrEqual(ERROR_LIMIT);
  });

  it("every problem of a small body is reported", () => {
    const errors = create.validate(request({ body: { extra: 1, kind: "cow" } }));
    expect(errors.map((e) => e.keyword).sort()).toEqual(["additionalProperties", "enum", "required"]);
  });
});

describe("non-finite numbers", () => {
  const pets = new OpenApiValidators(petStore());

  it("Infinity or NaN anywhere in a body is an error naming where, even where the schema allows anything", () => {
    const errors = pets.request("POST", "/pets").validate(request({ body: { name: "Rex", toys: [{ label: "a", weight: Infinity }] } }));
    expect(errors).toEqual([{ in: "body", path: ["toys", 0, "weight"], keyword: "finite", params: { value: "Infinity" }, message: "must be a finite number" }]);
    expect(pets.component("Pet")({ id: NaN, name: "Rex" })).toBe(false);
  });

  it("JSON.parse('1e400') is refused", () => {
    expect(pets.component("Pet")(JSON.parse('{"id": 1e400, "name": "Rex"}'))).toBe(false);
  });
});

describe("prototype keys", () => {
  it("__proto__ and constructor are ordinary members: unknown where members are closed, accepted where open, and pollute nothing", () => {
    const pets = new OpenApiValidators(petStore());
    const body = JSON.parse('{"name": "Rex", "__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}');
    const errors = pets.request("POST", "/pets").validate(request({ body }));
    expect(errors.map((e) => e.path)).toEqual([["__proto__"], ["constructor"]]);
    expect(pets.component("Problem")(JSON.parse('{"title": "x", "__proto__": {"polluted": true}}'))).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const reply = webdataWording.word({ kind: "invalid", errors });
    expect(reply.body).toMatchObject({ details: [{ code: "unrecognized_keys", keys: ["__proto__"] }, { code: "unrecognized_keys", keys: ["constructor"] }] });
  });
});

describe("walking operations", () => {
  it("merges path-item and operation parameters, follows $refs and lists documented examples", () => {
    const [listPets, createPet] = walkOperations(petStore());
    expect(listPets).toMatchObject({ operationId: "listPets", method: "GET", path: "/pets" });
    expect(listPets!.responses.map((r) => r.status)).toEqual(["200", "204", "default"]);
    expect(createPet!.requestBody).toMatchObject({ pointer: "/components/requestBodies/NewPet", required: true });
    expect(createPet!.responses.find((r) => r.status === "4XX")!.pointer).toBe("/components/responses/Problem");
    expect(createPet!.parameters[0]!.examples).toEqual([
      { name: "short", value: "abc" },
      { name: "example", value: "trace-1" },
    ]);
    const deletePet = walkOperations(petStore()).find((op) => op.operationId === "deletePet")!;
    expect(deletePet.parameters.map((p) => [p.name, p.in, p.schema])).toEqual([["petId", "path", "/components/pathItems/OnePet/delete/parameters/0/schema"]]);
  });

  it("every operation of both bundles is walked with its documented error examples", () => {
    for (const api of ["entitlements", "webdata"]) {
      const operations = walkOperations(loadBundle(api));
      expect(operations.length).toBeGreaterThan(2);
      const examples = operations.flatMap((op) => op.responses.filter((r) => Number(r.status) >= 400).flatMap((r) => r.media.flatMap((m) => m.examples)));
      expect(examples.length, api).toBeGreaterThan(5);
    }
  });
});

describe("error wording", () => {
  it("entitlements: every problem becomes its Error object, with the documented codes", () => {
    const codes = (
      [
        [{ kind: "unauthorized", reason: "missing" }, 401, "no_secret_key"],
        [{ kind: "unauthorized", reason: "unknown-key" }, 401, "invalid_secret_key"],
        [{ kind: "invalid", errors: [{ in: "body", path: ["feature_id"], keyword: "required", params: {}, message: "x" }] }, 400, "invalid_inputs"],
        [{ kind: "invalid", errors: [{ in: "header", path: ["x-api-version"], keyword: "pattern", params: {}, message: "x" }] }, 400, "invalid_api_version"],
        [{ kind: "not-found", method: "GET", path: "/v9" }, 404, "invalid_request"],
        [{ kind: "malformed-json" }, 400, "invalid_inputs"],
        [{ kind: "too-large", limit: 10 }, 413, "payload_too_large"],
        [{ kind: "timeout" }, 408, "request_timeout"],
        [{ kind: "bad-gateway", message: "upstream sent 200 without balance" }, 502, "internal_error"],
        [{ kind: "internal" }, 500, "internal_error"],
      ] as const
    ).map(([problem, status, code]) => {
      const reply = entitlementsWording.word(problem as Problem, { env: "live" });
      expect(reply.status).toBe(status);
      expect(reply.body).toMatchObject({ code, env: "live", message: expect.any(String) });
      return code;
    });
    expect(codes).toHaveLength(10);
    expect(refusal("entitlements", { kind: "invalid", errors: [{ in: "body", path: ["feature_id"], keyword: "required", params: {}, message: "" }] }).body).toMatchObject({
      message: "Invalid inputs: feature_id is required",
    });
  });

  it("webdata: validation is a BAD_REQUEST with zod-style details, everything else the error envelope", () => {
    const invalid = webdataWording.word({ kind: "invalid", errors: [{ in: "body", path: ["limit"], keyword: "type", params: { type: "integer" }, message: "must be integer" }] });
    expect(invalid).toEqual({ status: 400, body: { success: false, code: "BAD_REQUEST", error: "Bad Request", details: [{ code: "invalid_type", path: ["limit"], expected: "integer", message: "limit: must be integer" }] } });
    expect(webdataWording.word({ kind: "unauthorized", reason: "empty" })).toEqual({ status: 401, body: { success: false, error: "Unauthorized: Token missing" } });
    expect(webdataWording.word({ kind: "malformed-json" }).body).toMatchObject({ code: "BAD_REQUEST_INVALID_JSON" });
    expect(webdataWording.word({ kind: "timeout" }).status).toBe(408);
    expect(webdataWording.word({ kind: "bad-gateway", message: "no answer" })).toEqual({ status: 502, body: { success: false, error: "Bad gateway: no answer" } });
  });

  it("error bodies stay small: messages are cut, and a body stays under 64 KB whatever the input", () => {
    const huge = "k".repeat(1_000_000);
    const errors = Array.from({ length: ERROR_LIMIT }, () => ({ in: "body" as const, path: [huge, huge], keyword: "additionalProperties", params: {}, message: huge }));
    for (const wording of [entitlementsWording, webdataWording]) {
      const text = JSON.stringify(wording.word({ kind: "invalid", errors }).body);
      expect(text.length).toBeLessThan(64 * 1024);
      expect(JSON.stringify(wording.word({ kind: "not-found", method: huge, path: huge }).body).length).toBeLessThan(2_000);
    }
  });

  it("the real bundles accept the worded bodies at the statuses they document", () => {
    const errors = new ContractErrors("webdata");
    const reply = errors.reply({ kind: "invalid", errors: [{ in: "path", path: ["id"], keyword: "format", params: { format: "uuid" }, message: "x" }] }, { method: "DELETE", path: "/v2/crawl/{id}" });
    // The operation documents its own sentence for a malformed id; the description's example wins.
    expect(reply).toEqual({ status: 400, body: { success: false, error: "Invalid job ID format. Job ID must be a valid UUID." } });
    const entitlements = new ContractErrors("entitlements");
    for (const problem of [{ kind: "unauthorized", reason: "missing" }, { kind: "malformed-json" }, { kind: "internal" }] as const) {
      const { status, body } = entitlements.reply(problem, { method: "POST", path: "/v1/balances.check" });
      expect(entitlements.validators.response("POST", "/v1/balances.check", status)!(body), problem.kind).toBe(true);
    }
  });
});

describe("registry", () => {
  it("knows both APIs with their bundles, ports, keys, clients and wording", () => {
    expect(listApis().map((api) => [api.name, api.mockPort, api.keyEnv, api.client.factory])).toEqual([
      ["entitlements", 4011, "ENTITLEMENTS_API_KEY", "createEntitlementsClient"],
      ["webdata", 4010, "WEBDATA_API_KEY", "createWebdataClient"],
    ]);
    expect(getApi("webdata").wording).toBe(webdataWording);
    expect(() => getApi("billing")).toThrow(/unknown API 'billing'; known: entitlements, webdata/);
  });

  it("a third API is one registry entry: its bundle loads, validators and wording work", () => {
    const problemWording: ErrorWording = {
      word: (problem) => ({ status: problem.kind === "invalid" ? 422 : 400, body: { title: problem.kind } }),
    };
    const unregister = registerApi({
      name: "pets",
      title: "Pets API",
      bundle: { document: petStore() },
      mockPort: 4012,
      keyPrefix: "pk_",
      keyEnv: "PETS_API_KEY",
      client: { package: "@example/pets-client", factory: "createPetsClient" },
      wording: problemWording,
    });
    try {
      expect(listApis().map((api) => api.name)).toEqual(["entitlements", "webdata", "pets"]);
      const errors = new ContractErrors("pets");
      const found = errors.validators.request("POST", "/pets").validate(request({ body: { kind: "cow" } }));
      expect(found.map((e) => e.path)).toEqual([["name"], ["kind"]]);
      const reply = errors.reply({ kind: "invalid", errors: found }, { method: "POST", path: "/pets" });
      expect(reply).toEqual({ status: 422, body: { title: "invalid" } });
      expect(refusal("pets", { kind: "timeout" })).toEqual({ status: 400, body: { title: "timeout" } });
      expect(() => registerApi({ ...getApi("pets") })).toThrow(/already registered/);
    } finally {
      unregister();
    }
    expect(listApis().map((api) => api.name)).toEqual(["entitlements", "webdata"]);
  });

  it("a refusal answered from an operation's 4XX or default response is held to that response's schema", () => {
    const documented = (responses: JsonObject): JsonObject => ({
      openapi: "3.1.0",
      info: { title: "ranges", version: "1" },
      paths: { "/things": { post: { operationId: "makeThing", responses: { "201": { description: "made" }, ...responses } } } },
    });
    const problemResponse = {
      description: "problem",
      content: {
        "application/json": {
          schema: { type: "object", required: ["detail"], properties: { detail: { type: "string" } } },
          examples: { documented: { value: { detail: "the documented refusal" } } },
        },
      },
    };
    // The wording's body has no `detail`, so only the documented example fits the response.
    const wording: ErrorWording = { word: (problem) => ({ status: problem.kind === "timeout" ? 408 : 400, body: { title: problem.kind } }) };
    for (const [name, responses] of [
      ["by-range", { "4XX": problemResponse }],
      ["by-default", { default: problemResponse }],
    ] as const) {
      const unregister = registerApi({
        name,
        title: name,
        bundle: { document: documented(responses) },
        mockPort: 4013,
        keyPrefix: "k_",
        keyEnv: "RANGES_API_KEY",
        client: { package: "@example/ranges-client", factory: "createRangesClient" },
        wording,
      });
      try {
        const reply = new ContractErrors(name).reply({ kind: "timeout" }, { method: "POST", path: "/things" });
        expect(reply).toEqual({ status: 408, body: { detail: "the documented refusal" } });
      } finally {
        unregister();
      }
    }
  });
});
