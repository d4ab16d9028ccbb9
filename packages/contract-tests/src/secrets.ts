/** What an API key is replaced with wherever the kit prints or writes text. */
export const REDACTED = "[redacted]";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Replaces every occurrence of each secret, in any letter case (a server may echo a key
 * lower-cased, e.g. inside a media type). Longer secrets first, so that a key containing another
 * is hidden whole. A literal pattern keeps the replacement linear in the text.
 */
export function redactor(secrets: Array<string | undefined>): (text: string) => string {
  const patterns = [...new Set(secrets.filter((secret): secret is string => typeof secret === "string" && secret !== ""))]
    .sort((a, b) => b.length - a.length)
    .map((secret) => new RegExp(escapeRegExp(secret), "gi"));
  return (text) => patterns.reduce((out, pattern) => out.replace(pattern, REDACTED), text);
}

/**
 * A base URL as it may be shown: a password in it becomes `***` (a user name alone, which is
 * how tokens are often put in URLs, too). Text that is not a URL is masked by pattern.
 */
export function maskUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return baseUrl.replace(/\/\/[^/@]*@/, "//***@");
  }
  if (!url.username && !url.password) return baseUrl;
  if (url.password) url.password = "***";
  else if (url.username) url.username = "***";
  return url.href;
}

/** The URL requests go to: fetch refuses URLs with credentials, and the APIs authenticate by Bearer key. */
export function withoutCredentials(url: URL): URL {
  const bare = new URL(url.href);
  bare.username = "";
  bare.password = "";
  return bare;
}
