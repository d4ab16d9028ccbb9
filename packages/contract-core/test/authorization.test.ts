// One reading of `Authorization: Bearer` for the mock and the reference server.
import { describe, expect, it } from "vitest";
import { authorizationProblem } from "../src/contract.js";

const key = "fc-0123456789abcdef";
const only = (accepted: string) => (given: string) => given === accepted;

describe("authorizationProblem", () => {
  it.each([
    [undefined, "missing"],
    ["", "missing"],
    ["  \t ", "missing"],
    ["Bearer", "empty"],
    ["bearer\t", "empty"],
    ["Basic Zm9vOmJhcg==", "malformed"],
    ["Token abc", "malformed"],
    [key, "malformed"],
    ["Bearer two tokens", "malformed"],
    ["Bearer a,b", "malformed"],
    ["Bearer {json}", "malformed"],
    ["Bearer =abc", "malformed"],
    ["Bearer fc-another", "unknown-key"],
    [`Bearer ${key}`, undefined],
    [`bearer   ${key}  `, undefined],
  ] as const)("%j is %s", (header, reason) => {
    expect(authorizationProblem(header, only(key))).toBe(reason);
  });

  it("a server that knows no keys (the mock) accepts any well-formed one", () => {
    expect(authorizationProblem("Bearer anything-at-all", () => true)).toBeUndefined();
    expect(authorizationProblem("Bearer a,b", () => true)).toBe("malformed");
  });
});
