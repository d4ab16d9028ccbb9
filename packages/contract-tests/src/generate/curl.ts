import { concretePath, type GeneratedRequest } from "./arbitraries.js";

/** A word for a POSIX shell, inside single quotes (which keep everything literal). */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * A `curl` command that sends the request again. The key is written as `$API_KEY` (in double
 * quotes, so the shell expands it), never as itself.
 */
export function curlCommand(baseUrl: string, method: string, template: string, request: GeneratedRequest): string {
  const query = new URLSearchParams(request.query).toString();
  const url = `${baseUrl}${concretePath(template, request.path)}${query ? `?${query}` : ""}`;
  const parts = ["curl", "-sS", "-X", method, shellQuote(url), "-H", '"Authorization: Bearer $API_KEY"'];
  for (const [name, value] of Object.entries(request.headers)) parts.push("-H", shellQuote(`${name}: ${value}`));
  if (request.body !== undefined) parts.push("-H", shellQuote("Content-Type: application/json"), "--data-raw", shellQuote(JSON.stringify(request.body)));
  return parts.join(" ");
}
