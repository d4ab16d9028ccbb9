// Keeping the pages self-contained: they must render from disk or from a machine with no
// internet, so nothing may be fetched from a CDN, a font service or any other host.

// Redoc's sidebar footer shows an attribution logo that it fetches from its CDN at runtime. The
// same badge drawn locally keeps the attribution without the request.
const attributionLogo = `<svg xmlns="http://www.w3.org/2000/svg" width="72" height="16" viewBox="0 0 72 16"><rect width="72" height="16" rx="3" fill="#0044d4"/><text x="36" y="12" font-family="sans-serif" font-size="10" fill="#fff" text-anchor="middle">Redoc</text></svg>`;
const attributionLogoUri = `data:image/svg+xml,${encodeURIComponent(attributionLogo)}`;

// Without an icon of its own a page makes the browser ask its server for /favicon.ico, which no docs
// folder holds: a 404 in the log of every page load.
const icon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0044d4"/><path d="M4 4h8M4 8h8M4 12h5" stroke="#fff" stroke-width="2"/></svg>`;

/** The pages' icon, inline. */
export const ICON_LINK = `<link rel="icon" href="data:image/svg+xml,${encodeURIComponent(icon)}">`;

/**
 * The page with the icon in its head.
 * @param {string} html
 */
export function withIcon(html) {
  const at = html.indexOf("</head>");
  if (at < 0) throw new Error("the page has no </head> to add its icon before");
  return `${html.slice(0, at)}${ICON_LINK}\n${html.slice(at)}`;
}

const redocCdnImage = /https:\/\/cdn\.redoc\.ly\/redoc\/[\w.-]+\.svg/g;

/**
 * Replaces the images Redoc would fetch from its CDN with a local badge.
 * @param {string} html
 */
export function inlineRedocImages(html) {
  return html.replace(redocCdnImage, attributionLogoUri);
}

const cdnHosts = [
  "cdn.redoc.ly",
  "fonts.googleapis.com",
  "fonts.gstatic.com",
  "unpkg.com",
  "cdn.jsdelivr.net",
  "cdnjs.cloudflare.com",
  "use.typekit.net",
  "use.fontawesome.com",
];

const patterns = [
  // markup that makes the browser fetch at load time
  /<script\b[^>]*\bsrc\s*=\s*["']?(?:https?:)?\/\/[^"'\s>]+/gi,
  /<link\b[^>]*\bhref\s*=\s*["']?(?:https?:)?\/\/[^"'\s>]+/gi,
  /<(?:img|iframe|source|video|audio|embed)\b[^>]*\bsrc\s*=\s*["']?(?:https?:)?\/\/[^"'\s>]+/gi,
  // stylesheets that import or reference remote files
  /@import\s+(?:url\()?\s*["']?(?:https?:)?\/\/[^"'\s)]+/gi,
  /url\(\s*["']?(?:https?:)?\/\/[^"'\s)]+/gi,
  // remote scripts, styles, fonts and images named anywhere, e.g. inside the inlined bundle
  /https?:\/\/[^\s"'`<>()]+\.(?:m?js|css|woff2?|ttf|otf|eot|svg|png|jpe?g|gif|webp|ico)(?=[?#"'`\s)<>]|$)/gi,
  new RegExp(`https?://(?:${cdnHosts.map((h) => h.replaceAll(".", "\\.")).join("|")})[^\\s"'\`<>)]*`, "gi"),
];

// SVG and MathML namespace identifiers look like URLs but are never fetched.
const namespaces = /^https?:\/\/www\.w3\.org\//i;

/**
 * Every reference in the HTML that would load a script, style, font or image from another host.
 * @param {string} html
 * @returns {string[]} the offending snippets, de-duplicated
 */
export function externalResources(html) {
  const found = new Set();
  for (const pattern of patterns) {
    for (const match of html.matchAll(pattern)) {
      const url = match[0].match(/(?:https?:)?\/\/\S+/)?.[0] ?? match[0];
      if (!namespaces.test(url.replace(/^\/\//, "https://"))) found.add(match[0]);
    }
  }
  return [...found];
}
