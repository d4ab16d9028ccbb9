// The url rule's `host: reachable` step reads a host's public suffix without the public suffix list
// (the last label; see `lastLabelSuffix` in x-rules.ts). That answers as the whole list does only
// while no file extension a rule names ends a suffix of the list's ICANN section: held here for
// every url rule of every bundle, against the whole list (tldts, the library Firecrawl reads it with).
import { parse } from "tldts";
import { describe, expect, it } from "vitest";
import { acceptsUrl, listApis, loadBundle, type UrlRule } from "../src/index.js";

/** Every `url` rule anywhere in a document. */
function urlRules(node: unknown, found: UrlRule[] = []): UrlRule[] {
  if (Array.isArray(node)) for (const item of node) urlRules(item, found);
  else if (typeof node === "object" && node !== null) {
    if ((node as { rule?: unknown }).rule === "url") found.push(node as UrlRule);
    for (const value of Object.values(node)) urlRules(value, found);
  }
  return found;
}

/** Whether `label` ends a suffix of the list's ICANN section: the label itself, a wildcard under it, or a rule below it. */
const endsAnIcannSuffix = (label: string) =>
  [`a.${label}`, `a.b.${label}`, `a.com.${label}`, `a.co.${label}`, `a.b.c.${label}`].some((host) => {
    const parsed = parse(`https://${host}/`);
    return parsed.isIcann === true || parsed.publicSuffix !== label;
  });

describe("url rule: file extensions against the public suffix list", () => {
  const rules = listApis().flatMap((api) => urlRules(loadBundle(api)).map((rule) => ({ api: api.name, rule })));

  it("the bundles hold url rules with file extensions", () => {
    expect(rules.some(({ rule }) => (rule.fileExtensions?.length ?? 0) > 0)).toBe(true);
  });

  it.each(rules.filter(({ rule }) => rule.fileExtensions !== undefined).map(({ api, rule }) => [api, rule.member, rule] as const))(
    "%s %s: no file extension ends an ICANN suffix (else the rule needs the whole list)",
    (_api, _member, rule) => {
      expect(rule.fileExtensions!.filter(endsAnIcannSuffix)).toEqual([]);
    },
  );

  it("the check above finds a label that does end one", () => {
    expect(["zip", "mov", "py", "uk", "ck"].filter(endsAnIcannSuffix)).toEqual(["zip", "mov", "py", "uk", "ck"]);
    expect(["jpg", "pdf", "tgz"].filter(endsAnIcannSuffix)).toEqual([]);
  });

  it("hosts under multi-label suffixes are judged as the whole list judges them", () => {
    const rule: UrlRule = { rule: "url", member: "url", host: "reachable", fileExtensions: ["jpg", "pdf"], description: "" };
    const cases: Array<[string, boolean]> = [
      ["https://example.co.uk", true],
      ["https://shop.example.com.py/a", true],
      ["https://x.kawasaki.jp", true],
      ["https://www.ck", true],
      ["https://image_0001.jpg", false],
      ["https://a.b.c.pdf/x", false],
      ["https://example.invalidtld", true],
      ["https://8.8.8.8", true],
      ["https://.example.com", false],
    ];
    expect(cases.map(([url]) => [url, acceptsUrl(rule, url)])).toEqual(cases);
  });
});
