// A stand-in for Firecrawl's native module `@mendable/firecrawl-rs` (apps/api/native, napi-rs),
// which cannot be built here (its crates cannot be fetched). The conformance run copies this
// folder into the checkout's `native/` before installing, so that the API starts without it.
//
// Two functions are written here from what the Rust does (apps/api/native/src/crawler.rs
// `_filter_url`, apps/api/native/src/html.rs `post_process_markdown`), because Firecrawl has no
// fallback for them: without `filterUrl` no link of a page is followed, without
// `postProcessMarkdown` every page's markdown is "". Every other function throws (an async one
// rejects, as a failed napi call does), so that Firecrawl's own JavaScript fallback runs, as it
// does whenever the native call fails.
import { getDomain } from "tldts";

const NON_WEB_PROTOCOLS = ["mailto:", "tel:", "telnet:", "ftp:", "ftps:", "ssh:", "file:"];
const SOCIAL_MEDIA_OR_EMAIL = ["facebook.com", "twitter.com", "linkedin.com", "instagram.com", "pinterest.com", "github.com", "calendly.com", "discord.gg", "discord.com"];
/** The robots.txt agents tried when the crawl names none (`build_robot`). */
const DEFAULT_ROBOTS_AGENT = "FireCrawlAgent";

const parsed = (text, base) => {
  try {
    return new URL(text, base);
  } catch {
    return undefined;
  }
};

/** The host without its leading `www.` labels, as `is_internal_link` compares hosts. */
const siteOf = (url) => url.hostname.replace(/^(www\.)+/, "").trim();
const isInternalLink = (url, base) => siteOf(url) === siteOf(base);

/**
 * The registrable domain by the public suffix list, read as Rust's `psl` crate reads a host: with
 * the private section, and an IP address taken as labels (its last one an unknown suffix).
 */
const registrableDomain = (host) => getDomain(host, { allowPrivateDomains: true, detectIp: false, validHosts: [] }) ?? undefined;
const isSubdomain = (url, base) => {
  const domain = url.hostname && registrableDomain(url.hostname);
  return domain !== undefined && domain === (base.hostname && registrableDomain(base.hostname));
};

/** A `#` fragment is a section of the page unless it looks like a route (`#/docs/...`). */
function hasNoSection(text) {
  if (!text.includes("#")) return true;
  const fragment = text.split("#")[1];
  return fragment.length > 1 && fragment.includes("/");
}

/** An external site's home page: no path segment (an opaque path has none either). */
function isExternalMainPage(text) {
  const url = parsed(text);
  if (!url) return false;
  const segments = url.pathname.startsWith("/") ? url.pathname.slice(1).split("/").filter(Boolean) : [];
  return segments.length === 0;
}

/**
 * The crawler's path patterns as its `Regex::new(...).ok()` keeps them: one that does not compile
 * is dropped. The controller has already refused patterns JavaScript cannot compile; over the
 * ASCII of a serialised URL the two engines agree on the rest.
 */
function compilePatterns(patterns) {
  return patterns.flatMap((pattern) => {
    try {
      return [new RegExp(pattern)];
    } catch {
      return [];
    }
  });
}

/**
 * A robots.txt read as RFC 9309 says (the `texting_robots` crate follows it): the groups whose
 * user-agent is the crawler's (compared case-insensitively), else the `*` groups; among their
 * rules the longest match decides, `Allow` winning a tie; `*` matches any run of characters and a
 * final `$` the end. Lines it cannot read are skipped, so a malformed file allows everything.
 */
function robotsRules(robotsTxt, agent) {
  const groups = [];
  let current;
  let lastWasAgent = false;
  for (const raw of robotsTxt.split(/\r\n|\r|\n/)) {
    const line = raw.replace(/#.*/, "").trim();
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const field = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (field === "user-agent") {
      if (!lastWasAgent) groups.push((current = { agents: [], rules: [] }));
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
    } else if ((field === "allow" || field === "disallow") && current) {
      if (value !== "") current.rules.push({ allow: field === "allow", path: value });
      lastWasAgent = false;
    } else {
      lastWasAgent = false;
    }
  }
  const own = groups.filter((group) => group.agents.includes(agent.toLowerCase()));
  return (own.length > 0 ? own : groups.filter((group) => group.agents.includes("*"))).flatMap((group) => group.rules);
}

/** A rule's path as a RegExp over a percent-encoded path; undefined for one that cannot be encoded. */
function patternOf(rulePath) {
  const anchored = rulePath.endsWith("$");
  try {
    const body = (anchored ? rulePath.slice(0, -1) : rulePath)
      .split("*")
      .map((piece) => encodeURI(piece).replace(/%25([0-9A-Fa-f]{2})/g, "%$1").replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*");
    return new RegExp(`^${body}${anchored ? "$" : ""}`);
  } catch {
    return undefined;
  }
}

/** Whether the rules let the crawler fetch the URL (its path and query). */
function robotsAllow(rules, url) {
  const target = `${url.pathname}${url.search}`;
  let best;
  for (const rule of rules) {
    if (!patternOf(rule.path)?.test(target)) continue;
    const better = !best || rule.path.length > best.path.length || (rule.path.length === best.path.length && rule.allow && !best.allow);
    if (better) best = rule;
  }
  return best?.allow ?? true;
}

const denied = (denialReason) => ({ allowed: false, denialReason });

/**
 * Whether the crawler follows one link found on a page (or a redirect), and its URL:
 * `_filter_url` of crawler.rs. `href` is the link, `url` the page it was found on, `baseUrl` the
 * crawl's.
 */
export async function filterUrl({ href, url, baseUrl, excludes = [], ignoreRobotsTxt = false, robotsTxt = "", robotsUserAgent, allowExternalContentLinks = false, allowSubdomains = false }) {
  let fullUrl = href;
  if (!href.startsWith("http")) {
    const page = parsed(url);
    const resolved = page && parsed(href, page);
    if (!resolved) return denied("URL_PARSE_ERROR");
    fullUrl = resolved.href;
  }
  const link = parsed(fullUrl);
  const base = parsed(baseUrl);
  if (!link || !base) return denied("URL_PARSE_ERROR");
  const text = link.href;
  if (NON_WEB_PROTOCOLS.some((protocol) => text.startsWith(protocol))) return denied("NON_WEB_PROTOCOL");
  const excluded = compilePatterns(excludes);
  const rules = ignoreRobotsTxt || robotsTxt === "" ? undefined : robotsRules(robotsTxt, robotsUserAgent ?? DEFAULT_ROBOTS_AGENT);

  if (isInternalLink(link, base)) {
    if (!hasNoSection(text)) return denied("SECTION_LINK");
    if (excluded.some((pattern) => pattern.test(link.pathname))) return denied("EXCLUDE_PATTERN");
    if (rules && !robotsAllow(rules, link)) return denied("ROBOTS_TXT");
    return { allowed: true, url: fullUrl };
  }
  if (SOCIAL_MEDIA_OR_EMAIL.some((domain) => text.includes(domain))) return denied("SOCIAL_MEDIA");
  if (excluded.some((pattern) => pattern.test(text))) return denied("EXCLUDE_PATTERN");
  const page = parsed(url);
  if (!page) return denied("URL_PARSE_ERROR");
  // An external page, not a home page, found on an in-scope page or reached by a redirect that
  // stays on its own site.
  if (allowExternalContentLinks && !isExternalMainPage(text) && (isInternalLink(page, base) || isSubdomain(link, page) || isInternalLink(link, page))) {
    return { allowed: true, url: fullUrl };
  }
  if (allowSubdomains && isSubdomain(link, base)) return { allowed: true, url: fullUrl };
  return denied("EXTERNAL_LINK");
}

/**
 * The markdown of a page as Firecrawl keeps it: a line break inside a link's text (between `[`
 * and its `]`, nested brackets counted) is escaped with a backslash, then every
 * `[Skip to Content](#...)` link (the label in any case) is removed.
 */
export async function postProcessMarkdown(markdown) {
  let open = 0;
  let escaped = "";
  for (const char of markdown) {
    if (char === "[") open += 1;
    else if (char === "]") open = Math.max(0, open - 1);
    escaped += open > 0 && char === "\n" ? "\\\n" : char;
  }
  return escaped.replace(/\[skip to content\]\(#[^)]*\)/gi, "");
}

const notHere = (name) => new Error(`${name}: not in the conformance stand-in for @mendable/firecrawl-rs`);
const rejects = (name) => async () => {
  throw notHere(name);
};
const throws = (name) => () => {
  throw notHere(name);
};

// The native functions Firecrawl has a JavaScript path for when they fail.
export const filterLinks = rejects("filterLinks");
export const extractLinks = rejects("extractLinks");
export const extractBaseHref = rejects("extractBaseHref");
export const extractMetadata = rejects("extractMetadata");
export const transformHtml = rejects("transformHtml");
export const getInnerJson = rejects("getInnerJson");
export const extractAttributes = rejects("extractAttributes");
export const extractImages = rejects("extractImages");
export const parseSitemapXml = rejects("parseSitemapXml");
export const processSitemap = rejects("processSitemap");
export const computeEngpickerVerdict = rejects("computeEngpickerVerdict");
// Synchronous in the Rust (#[napi] pub fn): they throw rather than reject.
export const processPdf = throws("processPdf");
export const detectPdf = throws("detectPdf");
export const convertDocumentToMarkdown = throws("convertDocumentToMarkdown");
