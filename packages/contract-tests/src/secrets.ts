import { parseUrl } from "@api-contracts/contract-core";

/**
 * A base URL as it may be shown: a password in it becomes `***` (a user name alone, which is
 * how tokens are often put in URLs, too). Text that is not a URL is masked by pattern.
 */
export function maskUrl(baseUrl: string): string {
  const url = parseUrl(baseUrl);
  if (!url) return baseUrl.replace(/\/\/[^/@]*@/, "//***@");
  if (url.password) url.password = "***";
  else if (url.username) url.username = "***";
  else return baseUrl;
  return url.href;
}
