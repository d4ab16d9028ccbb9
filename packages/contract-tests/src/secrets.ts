export { redactor, REDACTED } from "@api-contracts/contract-core";

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
