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

describe("each service's own reading of Authorization", () => {
  it("exact-bearer (Autumn): `Bearer ` exactly, then the trimmed rest; a key without the checked prefix is refused before it is looked up", () => {
    const autumn = { reading: "exact-bearer", checkedPrefix: "am_sk" } as const;
    const known = (given: string) => given === "am_sk_test_1";
    expect(authorizationProblem("Bearer am_sk_test_1", known, autumn)).toBeUndefined();
    expect(authorizationProblem("Bearer   am_sk_test_1  ", known, autumn)).toBeUndefined();
    expect(authorizationProblem("bearer am_sk_test_1", known, autumn)).toBe("missing");
    expect(authorizationProblem("Basic am_sk_test_1", known, autumn)).toBe("missing");
    expect(authorizationProblem("Bearer ", known, autumn)).toBe("empty");
    expect(authorizationProblem("Bearer a b", known, autumn)).toBe("wrong-prefix");
    expect(authorizationProblem("Bearer am_sk_other", known, autumn)).toBe("unknown-key");
    expect(authorizationProblem("Bearer am_sk_test_1 extra", known, autumn)).toBe("unknown-key");
  });

  it("second-word (Firecrawl): the second space-separated word, whatever the scheme", () => {
    const firecrawl = { reading: "second-word" } as const;
    expect(authorizationProblem(`Basic ${key}`, only(key), firecrawl)).toBeUndefined();
    expect(authorizationProblem(`Bearer ${key} more`, only(key), firecrawl)).toBeUndefined();
    expect(authorizationProblem("Bearer", only(key), firecrawl)).toBe("empty");
    expect(authorizationProblem(`Bearer  ${key}`, only(key), firecrawl)).toBe("empty");
    expect(authorizationProblem(undefined, only(key), firecrawl)).toBe("missing");
    expect(authorizationProblem("Bearer fc-another", only(key), firecrawl)).toBe("unknown-key");
  });
});
