import type { ApiFacts } from "../generated/api-facts.js";
import type { Problem } from "../wording/wording.js";

/** Why a request is refused as unauthorized, as each API's error wording names it. */
export type UnauthorizedReason = Extract<Problem, { kind: "unauthorized" }>["reason"];

/** How a service reads its key from `Authorization`, and which keys it refuses before looking them up: an API's facts' `key`. */
export type KeyReading = Pick<ApiFacts["key"], "reading" | "checkedPrefix">;

/** RFC 6750's b64token: the only form a key takes (Firecrawl's `fc-…`, Autumn's `am_sk_…`). */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** The key a header carries as the service reads it, or why it carries none. */
function keyOf(authorization: string | undefined, reading: KeyReading["reading"]): string | Exclude<UnauthorizedReason, "unknown-key" | "wrong-prefix"> {
  const header = authorization ?? "";
  switch (reading) {
    case "exact-bearer": {
      // `Bearer ` exactly, then the rest trimmed: any other scheme, or another case, is no key at all.
      if (!header.startsWith("Bearer ")) return header.trim() === "Bearer" ? "empty" : "missing";
      return header.slice("Bearer ".length).trim() || "empty";
    }
    case "second-word": {
      // The second of the space-separated words, whatever the first: `Bearer  x` carries an empty one.
      if (header === "") return "missing";
      return header.split(" ")[1] || "empty";
    }
    default: {
      const [scheme, key, ...extra] = header.trim().split(/\s+/).filter(Boolean);
      if (scheme === undefined) return "missing";
      if (scheme.toLowerCase() !== "bearer" || extra.length > 0) return "malformed";
      if (key === undefined) return "empty";
      return B64TOKEN.test(key) ? key : "malformed";
    }
  }
}

/**
 * Reads `Authorization` as the API's service does (its facts' `key.reading`) and says why it is
 * refused, or undefined when `accepts` takes its key. `rfc6750` (the default): `Bearer` in any case
 * and one b64token; no header or a blank one is `missing`, `Bearer` alone `empty`, another scheme, a
 * second token or a token no key could be `malformed`. `exact-bearer`: the header starts with
 * `Bearer ` exactly, or carries no key (`missing`); the rest trimmed is the key. `second-word`: the
 * second space-separated word is the key, whatever the first. A key without the facts'
 * `checkedPrefix` is `wrong-prefix`, refused before it is looked up; one `accepts` does not know is
 * `unknown-key`.
 */
export function authorizationProblem(authorization: string | undefined, accepts: (key: string) => boolean, key: KeyReading = {}): UnauthorizedReason | undefined {
  const found = keyOf(authorization, key.reading);
  if (found === "missing" || found === "empty" || found === "malformed") return found;
  if (key.checkedPrefix !== undefined && !found.startsWith(key.checkedPrefix)) return "wrong-prefix";
  return accepts(found) ? undefined : "unknown-key";
}
