import { describe, expect, it } from "vitest";
import { ApiContract, describeFieldError, queryOf, summarizeAnswer, summarizeProblems, type FieldError } from "../src/contract.js";
import { petFacts, petStore } from "./fixture.js";

const { judge } = new ApiContract(petFacts(), petStore());
const createPet = judge.findOperation("POST", "/pets")!;
const listPets = judge.findOperation("GET", "/pets")!;
const lines = (problems: Array<{ in: string; pointer: string; message: string }>) => problems.map((p) => `${p.in}${p.pointer} ${p.message}`);

describe("a request judged", () => {
  const trace = { "X-Trace-Id": "trace-1", "content-type": "application/json" };

  it("keeps the contract, and the request comes back as read", () => {
    expect(judge.request({ method: "post", target: "/pets", headers: trace, body: '{"name":"Rex"}' })).toMatchObject({ operation: createPet, problems: [], read: { body: { name: "Rex" }, headers: { "x-trace-id": "trace-1" } } });
  });

  it("names each member at fault by its pointer, with the API's refusal beside it: the problems of the check that refused", () => {
    const judged = judge.request({ method: "POST", target: "/pets", headers: trace, body: '{"kind":"cow","extra":1}' });
    expect(lines(judged.problems)).toEqual(["body/name is required", "body/extra is not a documented member", 'body/kind must be one of "cat", "dog"']);
    expect(judged.refusal).toMatchObject({ kind: "invalid" });
    // The parameters are checked before the schema: a short trace id is what is refused first.
    const both = judge.request({ method: "POST", target: "/pets", headers: { "content-type": "application/json", "x-trace-id": "ab" }, body: '{"kind":"cow"}' });
    expect(lines(both.problems)).toEqual(["header/x-trace-id must NOT have fewer than 3 characters"]);
  });

  it("refuses a route, a media type and JSON before the schema", () => {
    expect(lines(judge.request({ method: "PUT", target: "/pets?x=1", headers: {} }).problems)).toEqual(["path PUT /pets is not an operation of the contract; documented at this path: GET, POST"]);
    expect(judge.request({ method: "POST", target: "/pets", headers: { ...trace, "content-type": "text/plain" }, body: "Rex" })).toMatchObject({
      problems: [{ in: "header", pointer: "/content-type", keyword: "media-type" }],
      refusal: { kind: "unsupported-media-type", received: "text/plain" },
    });
    expect(judge.request({ method: "POST", target: "/pets", headers: trace, body: "{" })).toMatchObject({ problems: [{ in: "body", keyword: "json", message: "is not valid JSON" }], refusal: { kind: "malformed-json" } });
  });

  it("reads the query from the target, a repeated name as a list", () => {
    expect(lines(judge.request({ method: "GET", target: "/pets?limit=0&tags=a&tags=b", headers: {} }).problems)).toEqual(["query/limit must be >= 1"]);
  });
});

describe("an answer judged", () => {
  it("by status, media type (as matchMediaType covers it), JSON and schema", () => {
    expect(judge.answer(listPets, "GET", { status: 200, contentType: "application/json; charset=utf-8", bodyText: '[{"id":1,"name":"Rex"}]' })).toEqual({ problems: [], body: [{ id: 1, name: "Rex" }] });
    expect(judge.answer(listPets, "GET", { status: 200, contentType: "text/plain", bodyText: "Rex" }).problems).toEqual([]);
    expect(lines(judge.answer(listPets, "GET", { status: 200, contentType: "image/png", bodyText: "" }).problems)).toEqual(["header/content-type is 'image/png', which a 200 answer to listPets does not take; documented: application/json, text/*"]);
    expect(lines(judge.answer(createPet, "POST", { status: 500, contentType: null, bodyText: "" }).problems)).toEqual(["status 500 is not documented for createPet; documented: 201, 4XX"]);
    expect(lines(judge.answer(listPets, "GET", { status: 200, contentType: "application/json", bodyText: "[{" }).problems)).toEqual(["body is not valid JSON"]);
    expect(lines(judge.answer(listPets, "GET", { status: 200, contentType: "application/json", bodyText: '[{"id":"1"}]' }).problems)).toEqual(["body/0/name is required", "body/0/id must be integer"]);
  });

  it("a 204 and a HEAD answer carry no body; a body where none is documented is a problem", () => {
    expect(judge.answerPlan(listPets, "GET", 204, undefined)).toMatchObject({ body: "none", problems: [] });
    expect(judge.answerPlan(listPets, "HEAD", 200, "application/json")).toMatchObject({ body: "none", problems: [] });
    const myPets = judge.findOperation("GET", "/pets/mine")!;
    expect(judge.answer(myPets, "GET", { status: 200, bodyText: "" }).problems).toEqual([]);
    expect(lines(judge.answer(myPets, "GET", { status: 200, bodyText: "surprise" }).problems)).toEqual(["body is present, but a 200 answer documents none"]);
  });
});

describe("one wording", () => {
  it("a field error reads the same in an error body and in a judgement", () => {
    const error: FieldError = { in: "body", path: ["lock", "expires_at"], keyword: "type", params: { type: "integer" }, message: "must be integer" };
    expect(describeFieldError(error)).toBe("lock.expires_at: must be integer");
    expect(describeFieldError({ ...error, keyword: "required", params: { missingProperty: "expires_at" } })).toBe("lock.expires_at is required");
  });

  it("a list of problems is summed up on one line: three, and how many more; an answer's with its status once", () => {
    const problem = (pointer: string) => ({ in: "body" as const, pointer, keyword: "required", message: "is required" });
    const four = ["/a", "/b", "/c", "/d"].map(problem);
    expect(summarizeProblems(four)).toBe("body/a is required; body/b is required; body/c is required (and 1 more)");
    expect(summarizeAnswer(200, four.slice(0, 1))).toBe("200 body/a is required");
    expect(summarizeAnswer(418, [{ in: "status", pointer: "", keyword: "status", message: "418 is not documented for x; documented: 200" }])).toBe("status 418 is not documented for x; documented: 200");
  });
});

describe("queryOf", () => {
  it("reads every parameter as sent, a repeated one as a list, whatever its name: an Object member's name is a parameter like any other", () => {
    const query = queryOf("/v2/crawl?constructor=1&toString=a&toString=b&__proto__=x&limit=2");
    expect(Object.entries(query)).toEqual([["constructor", "1"], ["toString", ["a", "b"]], ["__proto__", "x"], ["limit", "2"]]);
    expect(Object.getPrototypeOf(query)).toBe(Object.prototype);
  });
});
