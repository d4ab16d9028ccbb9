// One reading of a URL given without a scheme, for the url rule and the reference server.
import { describe, expect, it } from "vitest";
import { acceptsUrl, withDefaultScheme } from "../src/contract.js";

describe("withDefaultScheme", () => {
  it.each([
    ["example.com", "http://example.com"],
    ["example.com:8080/a", "http://example.com:8080/a"],
    ["https://example.com", "https://example.com"],
    ["HTTPS://example.com", "HTTPS://example.com"],
    ["ftp://example.com", "ftp://example.com"],
    [" https://example.com", " https://example.com"],
    ["//example.com", "http:////example.com"],
    ["a.b://example.com", "http://a.b://example.com"],
  ])("%j is read as %j", (given, read) => {
    expect(withDefaultScheme(given, "http")).toBe(read);
  });

  it("reads URLs as the url rule does: a value it accepts parses once the scheme is put in front and it is trimmed", () => {
    const rule = { rule: "url", member: "url", trim: true, defaultScheme: "http", description: "url must be a URL" } as const;
    for (const value of ["example.com", " example.com ", "https://example.com/x ", " https://example.com", "http://", "exa mple.com"]) {
      expect(acceptsUrl(rule, value), value).toBe(URL.canParse(withDefaultScheme(value, "http").trim()));
    }
  });
});
