// Headers as every tool reads them: one rule for names that differ in case and for repeated headers,
// and one list of the headers that belong to a connection rather than to a message.

/** Header values by any-case name, as Node and fetch hand them over; a repeated header may come as a list. */
export type HeaderValues = Record<string, string | readonly string[] | undefined>;

/**
 * Lower-case names, one string per header: a repeated header's values, and those of names that
 * differ only in case, joined with `, ` in the order given, as RFC 9110 §5.3 reads them.
 */
export function normalizeHeaders(headers: HeaderValues): Record<string, string> {
  // A Map, not an object: a header may be named `constructor` or `__proto__`.
  const normalized = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const joined = typeof value === "string" ? value : value.join(", ");
    const key = name.toLowerCase();
    const earlier = normalized.get(key);
    normalized.set(key, earlier === undefined ? joined : `${earlier}, ${joined}`);
  }
  return Object.fromEntries(normalized);
}

/** RFC 9110 §7.6.1: meaningful for one connection only, so never forwarded (nor are those `Connection` names). */
const HOP_BY_HOP: ReadonlySet<string> = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "proxy-authorization", "proxy-authenticate"]);

/** Raw header pairs (`[name, value, name, value, ...]`) without the hop-by-hop ones, those `Connection` names and those in `drop`. */
export function endToEnd(raw: readonly string[], drop: ReadonlySet<string> = new Set()): string[] {
  const listed = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === "connection") for (const token of raw[i + 1]!.split(",")) listed.add(token.trim().toLowerCase());
  }
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HOP_BY_HOP.has(name) && !drop.has(name) && !listed.has(name)) kept.push(raw[i]!, raw[i + 1]!);
  }
  return kept;
}
