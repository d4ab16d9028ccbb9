import { describe, expect, it } from "vitest";
import {
  ERROR_LIMIT,
  OpenApiValidators,
  contractOf,
  getApi,
  hasSchemalessObject,
  listApis,
  pathRegexProblem,
  loadBundle,
  registerApi,
  walkOperations,
  type JsonObject,
  type Problem,
  type RequestParts,
} from "../src/index.js";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { THIRD_API, THIRD_API_DIR } from "@api-contracts/dev-tools/testing";
import { readApiFolder } from "../src/index.js";
import { petFacts, petStore } from "./fixture.js";

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
    const reply = contractOf("webdata").wording.word({ kind: "invalid", errors });
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
  const entitlements = contractOf("entitlements");
  const webdata = contractOf("webdata");

  it("entitlements: every problem becomes its Error object, with the documented codes", () => {
    const codes = (
      [
        [{ kind: "unauthorized", reason: "missing" }, 401, "no_secret_key"],
        [{ kind: "unauthorized", reason: "unknown-key" }, 401, "invalid_secret_key"],
        [{ kind: "invalid", errors: [{ in: "body", path: ["feature_id"], keyword: "required", params: {}, message: "x" }] }, 400, "invalid_inputs"],
        [{ kind: "invalid", errors: [{ in: "header", path: ["x-api-version"], keyword: "pattern", params: {}, message: "x" }], refusal: "invalid-api-version", value: "9.9.9" }, 400, "invalid_api_version"],
        [{ kind: "not-found", method: "GET", path: "/v9" }, 404, "invalid_request"],
        [{ kind: "too-large", limit: 10 }, 413, "payload_too_large"],
        [{ kind: "timeout" }, 408, "request_timeout"],
        [{ kind: "bad-gateway", message: "upstream sent 200 without balance" }, 502, "internal_error"],
        [{ kind: "internal" }, 500, "internal_error"],
      ] as const
    ).map(([problem, status, code]) => {
      const reply = entitlements.wording.word(problem as Problem, { env: "live" });
      expect(reply.status).toBe(status);
      expect(reply.body).toMatchObject({ code, env: "live", message: expect.any(String) });
      return code;
    });
    expect(codes).toHaveLength(9);
    expect(entitlements.reply({ kind: "invalid", errors: [{ in: "body", path: ["feature_id"], keyword: "required", params: {}, message: "" }] }).body).toEqual({
      message: "Invalid inputs: feature_id is required",
      code: "invalid_inputs",
      env: "sandbox",
    });
    expect(entitlements.wording.word({ kind: "invalid", errors: [], refusal: "invalid-api-version", value: "2.0.1" }).body).toMatchObject({ message: '"2.0.1" is not a valid API version' });
  });

  it("webdata: validation is a BAD_REQUEST with zod-style details, everything else the error envelope", () => {
    const invalid = webdata.wording.word({ kind: "invalid", errors: [{ in: "body", path: ["limit"], keyword: "type", params: { type: "integer" }, message: "must be integer" }] });
    expect(invalid).toEqual({ status: 400, body: { success: false, code: "BAD_REQUEST", error: "Bad Request", details: [{ code: "invalid_type", path: ["limit"], expected: "integer", message: "limit: must be integer" }] } });
    expect(webdata.wording.word({ kind: "unauthorized", reason: "empty" })).toEqual({ status: 401, body: { success: false, error: "Unauthorized: Token missing" } });
    expect(webdata.wording.word({ kind: "malformed-json" }).body).toMatchObject({ code: "BAD_REQUEST_INVALID_JSON" });
    expect(webdata.wording.word({ kind: "timeout" }).status).toBe(408);
    expect(webdata.wording.word({ kind: "bad-gateway", message: "no answer" })).toEqual({ status: 502, body: { success: false, error: "Bad gateway: no answer" } });
    expect(webdata.wording.word({ kind: "bad-request", message: "Prefer code=999 is not an HTTP status code" })).toEqual({
      status: 400,
      body: { success: false, code: "BAD_REQUEST", error: "Bad Request", details: [{ code: "custom", path: [], message: "Prefer code=999 is not an HTTP status code" }] },
    });
  });

  it("error bodies stay small: messages are cut, and a body stays under 64 KB whatever the input", () => {
    const huge = "k".repeat(1_000_000);
    const errors = Array.from({ length: ERROR_LIMIT }, () => ({ in: "body" as const, path: [huge, huge], keyword: "additionalProperties", params: {}, message: huge }));
    for (const { wording } of [entitlements, webdata]) {
      const text = JSON.stringify(wording.word({ kind: "invalid", errors }).body);
      expect(text.length).toBeLessThan(64 * 1024);
      expect(JSON.stringify(wording.word({ kind: "not-found", method: huge, path: huge }).body).length).toBeLessThan(2_000);
      expect(JSON.stringify(wording.word({ kind: "invalid", errors: [], refusal: wording.refusalOf({ kind: "invalid", errors: [] }), value: huge }).body).length).toBeLessThan(2_000);
    }
  });

  it("the real bundles accept the worded bodies at the statuses they document", () => {
    for (const problem of [{ kind: "unauthorized", reason: "missing" }, { kind: "bad-request", message: "no" }, { kind: "internal" }] as const) {
      const { status, body } = entitlements.reply(problem, { method: "POST", path: "/v1/balances.check" });
      expect(entitlements.validators.response("POST", "/v1/balances.check", status)!(body), problem.kind).toBe(true);
    }
  });
});

describe("registry", () => {
  it("knows both APIs with their bundles, ports, keys, clients and wording, from the spec's apis.json", () => {
    expect(listApis().map((api) => [api.name, api.title, api.mockPort, api.key.variable, api.client?.factory])).toEqual([
      ["entitlements", "Entitlements API", 4011, "ENTITLEMENTS_API_KEY", "createEntitlementsClient"],
      ["webdata", "Web Data API", 4010, "WEBDATA_API_KEY", "createWebdataClient"],
    ]);
    expect(getApi("webdata").errors.refusals["unauthorized-empty"]).toEqual({ status: 401, body: { success: false, error: "Unauthorized: Token missing" } });
    expect(() => getApi("billing")).toThrow(/unknown API 'billing'; known: entitlements, webdata/);
    expect(contractOf("webdata")).toBe(contractOf("webdata"));
  });

  it("a third API is one registry entry: its bundle loads, validators, decision and wording work", () => {
    const unregister = registerApi({ ...petFacts(), bundle: { document: petStore() } });
    try {
      expect(listApis().map((api) => api.name)).toEqual(["entitlements", "webdata", "pets"]);
      const pets = contractOf("pets");
      const found = pets.validators.request("POST", "/pets").validate(request({ body: { kind: "cow" } }));
      expect(found.map((e) => e.path)).toEqual([["name"], ["kind"]]);
      const decision = pets.decide({ method: "POST", target: "/pets", headers: { "x-trace-id": "abc", "content-type": "application/json" }, body: '{"kind":"cow"}' });
      expect(pets.refusalOf(decision)).toEqual({ status: 400, body: { title: "invalid", detail: 'name is required; kind: must be one of "cat", "dog"' } });
      expect(pets.reply({ kind: "timeout" })).toEqual({ status: 408, body: { title: "timeout", detail: "" } });
      expect(() => registerApi({ ...getApi("pets") })).toThrow(/already registered/);
    } finally {
      unregister();
    }
    expect(listApis().map((api) => api.name)).toEqual(["entitlements", "webdata"]);
  });

  it("an API described only by its folder (openapi.json, api.json) is read, decided and worded like the spec's", () => {
    const notes = readApiFolder(THIRD_API_DIR);
    expect([notes.name, notes.title, notes.mockPort, notes.key.prefix]).toEqual([THIRD_API, "Notes API", 4012, "nk_"]);
    const unregister = registerApi(notes);
    try {
      const contract = contractOf(THIRD_API);
      const decision = contract.decide({ method: "POST", target: "/v1/notes", headers: { authorization: "Bearer nk_1", "content-type": "text/plain" }, body: "hi" });
      expect(contract.refusalOf(decision)).toEqual({ status: 415, body: { error: { code: "unsupported_media_type", message: "Send application/json, not text/plain" } } });
    } finally {
      unregister();
    }
  });

  it("CONTRACT_API_DIRS adds API folders to every tool's registry; a folder that is not one stops the tool with its reason", () => {
    const script = `import("@api-contracts/contract-core").then(({ listApis, contractOf }) => {
      const notes = contractOf("${THIRD_API}");
      const decision = notes.decide({ method: "GET", target: "/v1/notes?limit=99", headers: { authorization: "Bearer nk_1" } });
      console.log(JSON.stringify([listApis().map((api) => api.name), notes.refusalOf(decision)]));
    })`;
    const run = (dirs: string) => execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: path.dirname(THIRD_API_DIR), env: { ...process.env, CONTRACT_API_DIRS: dirs }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    expect(JSON.parse(run(THIRD_API_DIR))).toEqual([
      ["entitlements", "webdata", THIRD_API],
      { status: 400, body: { error: { code: "invalid", message: "limit: must be <= 50" } } },
    ]);
    const broken = mkdtempSync(path.join(tmpdir(), "api-folder-"));
    writeFileSync(path.join(broken, "api.json"), JSON.stringify({ mockPort: "x" }));
    writeFileSync(path.join(broken, "openapi.json"), "{}");
    expect(() => run(broken)).toThrow(/api\.json is not of the facts' format: \/ must have required property 'key'/);
  });

  it("an API whose facts do not hold together is refused, naming what is missing", () => {
    const facts = petFacts();
    delete (facts.errors.refusals as Record<string, unknown>)["malformed-json"];
    facts.requests.checks = ["authorization", "schema", "body", "parameters"];
    expect(() => registerApi({ ...facts, bundle: { document: petStore() } })).toThrow(/errors.refusals has no malformed-json, which requests need; requests.checks judges the schema before the body is read/);
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
          schema: { type: "object", required: ["detail"], properties: { detail: { type: "string" } }, additionalProperties: false },
          examples: { documented: { value: { detail: "the documented refusal" } } },
        },
      },
    };
    // The facts' body has a `title` the schema does not take, so only the documented example fits the response.
    for (const [name, responses] of [
      ["by-range", { "4XX": problemResponse }],
      ["by-default", { default: problemResponse }],
    ] as const) {
      const unregister = registerApi({ ...petFacts(), name, title: name, bundle: { document: documented(responses) } });
      try {
        const reply = contractOf(name).reply({ kind: "timeout" }, { method: "POST", path: "/things" });
        expect(reply).toEqual({ status: 408, body: { detail: "the documented refusal" } });
      } finally {
        unregister();
      }
    }
  });
});
