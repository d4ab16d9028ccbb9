import { describe, expect, it } from "vitest";
import { OpenApiValidators, follow, matchMediaType, normalizeHeaders, resolvePointer, type RequestParts } from "../src/index.js";
import { petStore } from "./fixture.js";

const pets = new OpenApiValidators(petStore());
const request = (overrides: Partial<RequestParts>): RequestParts => ({ path: "/pets", query: {}, headers: {}, body: undefined, ...overrides });

describe("operation lookup", () => {
  it("lists every operation in document order, path items behind a $ref included", () => {
    expect(pets.listOperations().map((op) => `${op.method} ${op.path} ${op.operationId}`)).toEqual([
      "GET /pets listPets",
      "POST /pets createPet",
      "GET /pets/{petId} getPet",
      "DELETE /pets/{petId} deletePet",
      "GET /pets/mine myPets",
    ]);
  });

  it("finds the operation of a concrete path by method and path template", () => {
    expect(pets.findOperation("get", "/pets/42")?.operationId).toBe("getPet");
    expect(pets.findOperation("DELETE", "/pets/42")?.path).toBe("/pets/{petId}");
    expect(pets.findOperation("POST", "/pets")?.pointer).toBe("/paths/~1pets/post");
  });

  it("prefers a concrete path over a template that also matches", () => {
    expect(pets.findOperation("GET", "/pets/mine")?.operationId).toBe("myPets");
  });

  it("finds nothing for an unknown method, path or empty path variable", () => {
    expect(pets.findOperation("PUT", "/pets")).toBeUndefined();
    expect(pets.findOperation("GET", "/pets/1/toys")).toBeUndefined();
    expect(pets.findOperation("GET", "/pets/")).toBeUndefined();
  });

  it("refuses to compile validators for an operation the description lacks", () => {
    expect(() => pets.request("PUT", "/pets")).toThrow("the description has no operation PUT /pets");
  });
});

describe("$ref following", () => {
  it("follows OpenAPI-level $refs to the object and reports its pointer", () => {
    const doc = petStore();
    const raw = resolvePointer(doc, "/paths/~1pets/post/requestBody");
    const { node, pointer } = follow(doc, raw, "/paths/~1pets/post/requestBody");
    expect(pointer).toBe("/components/requestBodies/NewPet");
    expect(node).toMatchObject({ required: true });
  });

  it("reads parameters behind a $ref and lets an operation's parameter replace the path item's", () => {
    expect(pets.request("POST", "/pets").parameters.map(({ name, in: at, required, schema }) => ({ name, in: at, required, schema }))).toEqual([{ name: "X-Trace-Id", in: "header", required: true, schema: "/components/parameters/Trace/schema" }]);
    expect(pets.request("DELETE", "/pets/{petId}").parameters.map((p) => p.schema)).toEqual(["/components/pathItems/OnePet/delete/parameters/0/schema"]);
  });

  it("gives no prototype members for a pointer", () => {
    expect(resolvePointer(petStore(), "/paths/constructor")).toBeUndefined();
  });

  it("rejects a $ref that leaves the document", () => {
    expect(() => follow({}, { $ref: "other.json#/a" }, "/x")).toThrow("only local $refs");
  });
});

describe("request validation", () => {
  it("accepts a valid request with no errors", () => {
    const valid = request({ headers: { "x-trace-id": "abc" }, body: { name: "Rex", kind: "dog" } });
    expect(pets.request("POST", "/pets").validate(valid)).toEqual([]);
  });

  it("names a missing or unknown member itself and gives array indices as numbers", () => {
    const errors = pets.request("POST", "/pets").validate(request({ headers: { "x-trace-id": "abc" }, body: { extra: 1, toys: [{ label: "ball" }, {}] } }));
    expect(errors.map((e) => [e.in, e.path, e.keyword])).toEqual([
      ["body", ["name"], "required"],
      ["body", ["extra"], "additionalProperties"],
      ["body", ["toys", 1, "label"], "required"],
    ]);
  });

  it("keeps ajv's params and message for the caller to word", () => {
    const [error] = pets.request("POST", "/pets").validate(request({ headers: { "x-trace-id": "abc" }, body: { name: "Rex", kind: "cow" } }));
    expect(error).toEqual({ in: "body", path: ["kind"], keyword: "enum", params: { allowedValues: ["cat", "dog"] }, message: "must be equal to one of the allowed values" });
  });

  it("reports a missing required body as a required body", () => {
    const errors = pets.request("POST", "/pets").validate(request({ headers: { "x-trace-id": "abc" } }));
    expect(errors).toEqual([{ in: "body", path: [], keyword: "required", params: {}, message: "is required" }]);
  });

  it("reads headers by lower-case name, whatever case the description uses", () => {
    const errors = pets.request("POST", "/pets").validate(request({ headers: { "x-trace-id": "ab" }, body: { name: "Rex" } }));
    expect(errors.map((e) => [e.in, e.path, e.keyword])).toEqual([["header", ["x-trace-id"], "minLength"]]);
    const missing = pets.request("POST", "/pets").validate(request({ body: { name: "Rex" } }));
    expect(missing.map((e) => [e.in, e.path, e.keyword])).toEqual([["header", ["x-trace-id"], "required"]]);
  });

  it("coerces query strings to the documented types, a lone value to an array included", () => {
    const query: Record<string, unknown> = { limit: "5", verbose: "true", tags: "small" };
    const { query: validateQuery } = pets.request("GET", "/pets");
    expect(validateQuery(query)).toBe(true);
    expect(query).toEqual({ limit: 5, verbose: true, tags: ["small"] });
  });

  it("rejects a query string that does not convert, naming the parameter", () => {
    const errors = pets.request("GET", "/pets").validate(request({ query: { limit: "0", verbose: "maybe" } }));
    expect(errors.map((e) => [e.in, e.path, e.keyword])).toEqual([
      ["query", ["limit"], "minimum"],
      ["query", ["verbose"], "type"],
    ]);
  });

  it("reads path parameters from the concrete path with the template, decoded", () => {
    expect(pets.request("GET", "/pets/{petId}").validate(request({ path: "/pets/42" }))).toEqual([]);
    const errors = pets.request("DELETE", "/pets/{petId}").validate(request({ path: "/pets/not%20a%20uuid" }));
    expect(errors.map((e) => [e.in, e.path, e.keyword])).toEqual([["path", ["petId"], "format"]]);
  });

  it("treats a broken percent-escape in a path variable as the raw value, not a crash", () => {
    const errors = pets.request("GET", "/pets/{petId}").validate(request({ path: "/pets/%E0%A4%A" }));
    expect(errors.map((e) => [e.in, e.path, e.keyword])).toEqual([["path", ["petId"], "type"]]);
  });

  it("compiles each operation's validators once", () => {
    expect(pets.request("get", "/pets")).toBe(pets.request("GET", "/pets"));
  });
});

describe("response validation", () => {
  it("validates the body documented for the exact status", () => {
    const validate = pets.response("POST", "/pets", 201)!;
    expect(validate({ id: 1, name: "Rex" })).toBe(true);
    expect(validate({ id: "1", name: "Rex" })).toBe(false);
  });

  it("falls back to the status range, then to default", () => {
    expect(pets.documentedResponse("POST", "/pets", 404)).toMatchObject({ code: "4XX", pointer: "/components/responses/Problem" });
    expect(pets.documentedResponse("GET", "/pets", 503)?.code).toBe("default");
    expect(pets.documentedResponse("POST", "/pets", 500)).toBeUndefined();
  });

  it("picks the schema by Content-Type, parameters ignored and wildcards honoured", () => {
    expect(pets.response("POST", "/pets", 404, "application/problem+json; charset=utf-8")!({ title: "nope" })).toBe(true);
    expect(pets.response("GET", "/pets", 200, "text/plain")!("hello")).toBe(true);
    expect(pets.response("GET", "/pets", 200, "text/plain")!(42)).toBe(false);
  });

  it("has no validator for an undocumented status, media type or a response without body", () => {
    expect(pets.response("POST", "/pets", 500)).toBeNull();
    expect(pets.response("POST", "/pets", 404, "application/json")).toBeNull();
    expect(pets.response("GET", "/pets", 204)).toBeNull();
  });

  it("matches media types case-insensitively and by wildcard", () => {
    expect(matchMediaType("Application/JSON", ["application/json"])).toBe("application/json");
    expect(matchMediaType("image/png", ["text/*", "*/*"])).toBe("*/*");
    expect(matchMediaType("image/png", ["text/*"])).toBeUndefined();
  });
});

describe("schemas by pointer", () => {
  it("validates against a component schema by name", () => {
    expect(pets.component("Pet")({ id: 1, name: "Rex" })).toBe(true);
    expect(pets.component("Pet")({ id: 1 })).toBe(false);
  });

  it("compiles the schema at a pointer once", () => {
    expect(pets.schema("/components/schemas/Pet")).toBe(pets.component("Pet"));
  });
});

describe("header names", () => {
  it("are lower-cased and a repeated name's values joined, whatever the name: an Object member's name is a header like any other", () => {
    const normalized = normalizeHeaders({ Constructor: "a", toString: ["b", "c"], __proto__x: "d", "X-Trace": "e", "x-trace": "f", ["__proto__"]: "g" });
    expect(Object.entries(normalized)).toEqual([["constructor", "a"], ["tostring", "b, c"], ["__proto__x", "d"], ["x-trace", "e, f"], ["__proto__", "g"]]);
  });
});
