/** What a client asked for with the `Prefer` header (RFC 7240), in Prism's vocabulary. */
export interface Preference {
  code?: number;
  example?: string;
  dynamic?: boolean;
}

/**
 * Reads `Prefer: code=404, example=feature-not-found, dynamic=true`. Preferences are separated by
 * commas or semicolons; values may be quoted. Unknown preferences are ignored, as RFC 7240 asks.
 */
export function parsePrefer(header: string | string[] | undefined): Preference | string {
  if (!header) return {};
  const text = Array.isArray(header) ? header.join(",") : header;
  const preference: Preference = {};
  for (const part of text.split(/[,;]/)) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim().toLowerCase();
    const value = part
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1");
    if (key === "code") {
      const code = Number(value);
      if (!/^[1-5][0-9][0-9]$/.test(value)) return `Prefer code=${value} is not an HTTP status code`;
      preference.code = code;
    } else if (key === "example") {
      if (!value) return "Prefer example= needs the name of a documented example";
      preference.example = value;
    } else if (key === "dynamic") {
      if (value !== "true" && value !== "false") return `Prefer dynamic=${value} must be true or false`;
      preference.dynamic = value === "true";
    }
  }
  return preference;
}
