// The stand-in for Firecrawl's native module: its two functions against vectors read from the Rust
// they stand in for (yzkee/firecrawl@ca0be9b7d91e apps/api/native/src/crawler.rs `_filter_url` and
// its tests; apps/api/native/src/html.rs `post_process_markdown`, `remove_skip_to_content_links`),
// and every other function failing the way a failed native call fails.
import { describe, expect, it } from "vitest";
import * as standIn from "../src/firecrawl-rs/index.mjs";

const { filterUrl, postProcessMarkdown } = standIn;

/** crawler.rs tests' `filter_url_call`: no excludes, robots.txt ignored, external content links allowed. */
const call = (href, url, baseUrl, options = {}) => ({
  href,
  url,
  baseUrl,
  excludes: [],
  ignoreRobotsTxt: true,
  robotsTxt: "",
  allowExternalContentLinks: true,
  allowSubdomains: false,
  ...options,
});

describe("filterUrl, as crawler.rs _filter_url", () => {
  // crawler.rs tests, one vector each (test name, href, url, base URL, outcome).
  it.each([
    ["test_filter_url_allows_external_link_redirect_same_domain", "http://www.iana.org/help/example-domains", "https://iana.org/domains/example", "https://example.org", undefined],
    ["test_filter_url_allows_external_link_redirect_to_subdomain", "https://blog.example.com/post", "https://example.com/link", "https://crawlseed.org", undefined],
    ["test_filter_url_allows_external_link_redirect_same_host_path_change", "https://www.london.gov.uk/programmes-strategies/planning/london-plan", "https://www.london.gov.uk/what-we-do/planning/london-plan", "https://example.org", undefined],
    ["test_filter_url_denies_redirect_to_external_homepage", "https://www.peoplefirstinfo.org.uk/", "https://www.westminster.gov.uk/node/21229", "https://www.westminster.gov.uk", "EXTERNAL_LINK"],
    ["test_filter_url_denies_redirect_to_unrelated_external_domain", "https://unrelated.com/article", "https://iana.org/domains/example", "https://example.org", "EXTERNAL_LINK"],
  ])("%s", async (_name, href, url, baseUrl, denialReason) => {
    const result = await filterUrl(call(href, url, baseUrl));
    expect(result).toEqual(denialReason ? { allowed: false, denialReason } : { allowed: true, url: href });
  });

  // The robots.txt vectors of crawler.rs's _filter_links tests: build_robot and robot.allowed are
  // the ones _filter_url calls for an internal link.
  const robots = (href, robotsTxt, robotsUserAgent) => filterUrl(call(href, "https://example.com", "https://example.com", { ignoreRobotsTxt: false, robotsTxt, robotsUserAgent }));
  it("test_filter_links_normal_robots_txt: a disallowed path is denied, another allowed", async () => {
    expect(await robots("https://example.com/allowed", "User-agent: *\nDisallow: /disallowed")).toEqual({ allowed: true, url: "https://example.com/allowed" });
    expect(await robots("https://example.com/disallowed", "User-agent: *\nDisallow: /disallowed")).toEqual({ allowed: false, denialReason: "ROBOTS_TXT" });
  });
  it("test_filter_links_malformed_robots_txt, _non_utf8_robots_txt, _char_boundary_issue: the link is allowed", async () => {
    for (const robotsTxt of ["Invalid robots.txt content with \x00 null bytes and malformed syntax", "\uFFFD\uFFFDUser-agent: *\nDisallow: /blocked", "User-agent: *\nDisallow: /\u00a0test"]) {
      const href = robotsTxt.includes("blocked") ? "https://example.com/allowed" : "https://example.com/test";
      expect(await robots(href, robotsTxt), JSON.stringify(robotsTxt)).toEqual({ allowed: true, url: href });
    }
  });
  it("test_filter_links_honors_custom_robots_user_agent: the agent's own group decides", async () => {
    const robotsTxt = "User-agent: *\nAllow: /\n\nUser-agent: CustomBot\nDisallow: /";
    expect(await robots("https://example.com/page", robotsTxt)).toEqual({ allowed: true, url: "https://example.com/page" });
    expect(await robots("https://example.com/page", robotsTxt, "CustomBot")).toEqual({ allowed: false, denialReason: "ROBOTS_TXT" });
  });
  it("robots.txt: the longest rule wins, Allow on a tie, with * and $", async () => {
    const robotsTxt = "User-agent: FireCrawlAgent\nDisallow: /docs\nAllow: /docs/public\nDisallow: /*.pdf$";
    expect((await robots("https://example.com/docs/private", robotsTxt)).allowed).toBe(false);
    expect((await robots("https://example.com/docs/public/a", robotsTxt)).allowed).toBe(true);
    expect((await robots("https://example.com/files/a.pdf", robotsTxt)).allowed).toBe(false);
    expect((await robots("https://example.com/files/a.pdf?x=1", robotsTxt)).allowed).toBe(true);
    expect((await robots("https://example.com/page", "User-agent: *\nDisallow: /page\nAllow: /page")).allowed).toBe(true);
  });

  // The branches of _filter_url, read from its code.
  const onPage = (href, options) => filterUrl(call(href, "https://www.example.com/docs/start.html", "https://example.com", { allowExternalContentLinks: false, ...options }));
  it("resolves a relative link against the page and answers the resolved URL; an absolute one as it was given", async () => {
    expect(await onPage("guide.html?x=1")).toEqual({ allowed: true, url: "https://www.example.com/docs/guide.html?x=1" });
    expect(await onPage("../about.html")).toEqual({ allowed: true, url: "https://www.example.com/about.html" });
    expect(await onPage("https://Example.COM/About")).toEqual({ allowed: true, url: "https://Example.COM/About" });
    // "starts with http" is case-sensitive: an upper-case scheme is resolved, and answered normalised.
    expect(await onPage("HTTPS://EXAMPLE.COM/About")).toEqual({ allowed: true, url: "https://example.com/About" });
  });
  it("compares hosts without their leading www. labels", async () => {
    expect((await onPage("https://www.www.example.com/a")).allowed).toBe(true);
    expect(await onPage("https://docs.example.com/a")).toEqual({ allowed: false, denialReason: "EXTERNAL_LINK" });
  });
  it("denies what does not parse, a link of another protocol, a section of a page, and an excluded path", async () => {
    expect(await onPage("http://[::1")).toEqual({ allowed: false, denialReason: "URL_PARSE_ERROR" });
    expect(await onPage("http-guide.html")).toEqual({ allowed: false, denialReason: "URL_PARSE_ERROR" });
    expect(await filterUrl(call("a", "not a url", "https://example.com"))).toEqual({ allowed: false, denialReason: "URL_PARSE_ERROR" });
    expect(await onPage("mailto:team@example.com")).toEqual({ allowed: false, denialReason: "NON_WEB_PROTOCOL" });
    expect(await onPage("#install")).toEqual({ allowed: false, denialReason: "SECTION_LINK" });
    expect(await onPage("#/docs/install")).toEqual({ allowed: true, url: "https://www.example.com/docs/start.html#/docs/install" });
    expect(await onPage("/blog/post", { excludes: ["^/blog/"] })).toEqual({ allowed: false, denialReason: "EXCLUDE_PATTERN" });
    // An excluded pattern matches an internal link's path only, an external link's whole URL.
    expect((await onPage("/docs/blog", { excludes: ["example\\.com"] })).allowed).toBe(true);
    expect(await onPage("https://other.org/example.com/a", { excludes: ["example\\.com"], allowExternalContentLinks: true })).toEqual({ allowed: false, denialReason: "EXCLUDE_PATTERN" });
  });
  it("drops a pattern that does not compile, as Regex::new(..).ok() does", async () => {
    expect((await onPage("/blog/post", { excludes: ["(unclosed", "^/nothing"] })).allowed).toBe(true);
  });
  it("denies social media before anything else of an external link", async () => {
    expect(await onPage("https://github.com/firecrawl/firecrawl", { allowExternalContentLinks: true, allowSubdomains: true })).toEqual({ allowed: false, denialReason: "SOCIAL_MEDIA" });
  });
  it("takes an external page but not an external home page when external content links are allowed", async () => {
    expect(await onPage("https://other.org/article", { allowExternalContentLinks: true })).toEqual({ allowed: true, url: "https://other.org/article" });
    expect(await onPage("https://other.org/", { allowExternalContentLinks: true })).toEqual({ allowed: false, denialReason: "EXTERNAL_LINK" });
  });
  it("takes a subdomain of the crawl's registrable domain (public suffix list, private section included) when subdomains are allowed", async () => {
    expect(await onPage("https://docs.example.com/a", { allowSubdomains: true })).toEqual({ allowed: true, url: "https://docs.example.com/a" });
    // github.io is a suffix of the list's private section: another user's site is another domain.
    const onHostedSite = (href) => filterUrl(call(href, "https://alice.github.io/", "https://alice.github.io", { allowExternalContentLinks: false, allowSubdomains: true }));
    expect(await onHostedSite("https://bob.github.io/post")).toEqual({ allowed: false, denialReason: "EXTERNAL_LINK" });
    expect(await onHostedSite("https://docs.alice.github.io/post")).toEqual({ allowed: true, url: "https://docs.alice.github.io/post" });
  });
});

describe("postProcessMarkdown, as html.rs post_process_markdown", () => {
  it.each([
    ["a line break inside a link's text is escaped", "[first\nsecond](https://example.com)", "[first\\\nsecond](https://example.com)"],
    ["nested brackets are counted", "[a [b]\nc](x)", "[a [b]\\\nc](x)"],
    ["a line break outside brackets is kept", "one\ntwo [x](y)\nthree", "one\ntwo [x](y)\nthree"],
    ["a closing bracket never counts below zero (saturating_sub)", "]]\n[a\nb]", "]]\n[a\\\nb]"],
    ["a skip-to-content link to a fragment is removed, in any case", "[Skip to Content](#main)Title\n[skip TO content](#top) and [SKIP to content](#)", "Title\n and "],
    ["a skip-to-content link that is not a fragment, or has no closing parenthesis, is kept", "[Skip to Content](/main) [Skip to Content](#open", "[Skip to Content](/main) [Skip to Content](#open"],
    ["the link runs to the first ')', across a line break", "a[Skip to Content](#x\ny)b", "ab"],
    ["a longer label is not the skip link", "[Skip to Contents](#main)", "[Skip to Contents](#main)"],
    ["the escape comes first, the removal second", "[Skip\nto Content](#main)", "[Skip\\\nto Content](#main)"],
    ["text outside the Basic Multilingual Plane passes through", "[😀\n😀](#) [Skip to Content](#😀)", "[😀\\\n😀](#) "],
  ])("%s", async (_rule, markdown, expected) => {
    expect(await postProcessMarkdown(markdown)).toBe(expected);
  });
});

describe("the functions Firecrawl has a JavaScript path for", () => {
  const implemented = new Set(["filterUrl", "postProcessMarkdown"]);
  const failing = Object.keys(standIn).filter((name) => !implemented.has(name));

  it("are the rest of the native module's exports", () => {
    expect(failing.sort()).toEqual(
      ["computeEngpickerVerdict", "convertDocumentToMarkdown", "detectPdf", "extractAttributes", "extractBaseHref", "extractImages", "extractLinks", "extractMetadata", "filterLinks", "getInnerJson", "parseSitemapXml", "processPdf", "processSitemap", "transformHtml"].sort(),
    );
  });

  it("reject when asynchronous in the Rust, throw when synchronous, naming the function", async () => {
    for (const name of ["convertDocumentToMarkdown", "detectPdf", "processPdf"]) expect(() => standIn[name]("x"), name).toThrow(`${name}: not in the conformance stand-in`);
    for (const name of failing.filter((n) => !["convertDocumentToMarkdown", "detectPdf", "processPdf"].includes(n))) {
      await expect(standIn[name]("x"), name).rejects.toThrow(`${name}: not in the conformance stand-in`);
    }
  });
});
