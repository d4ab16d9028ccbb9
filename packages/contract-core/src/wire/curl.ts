// The one way a request is written as a `curl` command for a person to send again: the key never
// appears, only the environment variable that holds it.

/** A word for a POSIX shell, inside single quotes (which keep everything literal). */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export interface CurlRequest {
  method: string;
  /** The whole URL: base, path and query. */
  url: string;
  /** Sent as given; an `authorization` header among them is left out (see `keyVariable`). */
  headers?: Record<string, string>;
  body?: string;
}

export interface CurlOptions {
  /** The environment variable holding the key, sent as `Authorization: Bearer $<variable>`; none: no credential. */
  keyVariable?: string;
  /** `-sS`: no progress meter, errors still shown (for a log of reproductions). */
  quiet?: boolean;
  /** One option per line, for reading; default one line. */
  multiline?: boolean;
}

/** The request as a curl command; `-X` only where the method is not the one curl picks itself. */
export function curlCommand(request: CurlRequest, options: CurlOptions = {}): string {
  const method = request.method.toUpperCase();
  const first = ["curl"];
  if (options.quiet) first.push("-sS");
  // Braces left in a URL (an unfilled path variable) would be read as curl's globbing.
  if (/[{}[\]]/.test(request.url)) first.push("--globoff");
  const bodyless = request.body === undefined;
  if (!(method === "GET" && bodyless) && !(method === "POST" && !bodyless)) first.push("-X", method);
  first.push(shellQuote(request.url));
  const parts = [first.join(" ")];
  if (options.keyVariable) parts.push(`-H "Authorization: Bearer $${options.keyVariable}"`);
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (name.toLowerCase() !== "authorization") parts.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  }
  if (!bodyless) parts.push(`--data-raw ${shellQuote(request.body!)}`);
  return parts.join(options.multiline ? " \\\n  " : " ");
}
