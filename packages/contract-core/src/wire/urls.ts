// URLs and request targets as every tool reads them.

/**
 * A string as the WHATWG parser reads it, or undefined when it does not parse. Not `URL.canParse`:
 * on Node 20, once a hot caller is optimised, its fast path reads a Latin-1 string as UTF-8 and
 * refuses valid URLs that hold a non-ASCII Latin-1 character (`straße.de`, `ü` in a query).
 */
export function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** An absolute `http:` or `https:` URL, or undefined: what a base URL or an endpoint must be. */
export function parseHttpUrl(value: string): URL | undefined {
  const url = parseUrl(value);
  return url?.protocol === "http:" || url?.protocol === "https:" ? url : undefined;
}

/** The path of a request target (`/v2/crawl?x=1` is `/v2/crawl`). */
export function pathOf(target: string): string {
  return target.split("?", 1)[0]!;
}

/** Query parameters of a request target as the validators read them: a repeated name becomes a list. */
export function queryOf(target: string): Record<string, string | string[]> {
  const mark = target.indexOf("?");
  // A Map, not an object: a parameter may be named `constructor` or `__proto__`.
  const query = new Map<string, string | string[]>();
  for (const [name, value] of new URLSearchParams(mark < 0 ? "" : target.slice(mark + 1))) {
    const seen = query.get(name);
    query.set(name, seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value]);
  }
  return Object.fromEntries(query);
}

/**
 * The origin-form of a request target (RFC 9112 §3.2): an absolute-form target names an authority
 * of its own, which a server of one API does not follow. Undefined for a target that is not a path
 * at all (the asterisk-form of `OPTIONS *`).
 */
export function originForm(target: string): string | undefined {
  if (target.startsWith("/")) return target;
  const authority = /^https?:\/\/[^/?#]*/i.exec(target);
  if (!authority) return undefined;
  const rest = target.slice(authority[0].length);
  return rest.startsWith("/") ? rest : `/${rest}`;
}

/** A target's query string from values, repeated for a list (`?a=1&a=2`); empty without values. */
export function queryString(values: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) query.append(name, String(one));
  }
  const text = query.toString();
  return text ? `?${text}` : "";
}
