import type { Problem } from "../wording/wording.js";

/** Why a request is refused as unauthorized, as each API's error wording names it. */
export type UnauthorizedReason = Extract<Problem, { kind: "unauthorized" }>["reason"];

/** RFC 6750's b64token: the only form a key takes (Firecrawl's `fc-…`, Autumn's `am_sk_…`). */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Reads `Authorization: Bearer <key>` and says why it is refused, or undefined when `accepts`
 * takes its key. No header or a blank one is `missing` (the live services' bare 401); `Bearer`
 * alone is `empty` (their "token missing"). Another scheme, a second token, or a token no key could
 * be (`Bearer a,b`) is `malformed`: the live services look such a token up like any other and
 * answer "invalid token", which is what both wordings answer for `malformed` and `unknown-key` alike.
 */
export function authorizationProblem(authorization: string | undefined, accepts: (key: string) => boolean): UnauthorizedReason | undefined {
  const [scheme, key, ...extra] = (authorization ?? "").trim().split(/\s+/).filter(Boolean);
  if (scheme === undefined) return "missing";
  if (scheme.toLowerCase() !== "bearer" || extra.length > 0) return "malformed";
  if (key === undefined) return "empty";
  if (!B64TOKEN.test(key)) return "malformed";
  return accepts(key) ? undefined : "unknown-key";
}
