// The `Prefer` header (RFC 7240) of the mocks and the fault vocabulary every server and file shares.

/** The ways a server can fail a request on purpose: the connection reset, no answer at all, or a body trickled. */
export const FAULT_NAMES = ["reset", "hang", "slow-body"] as const;
export type FaultName = (typeof FAULT_NAMES)[number];

/** The longest delay a rule, or `Prefer: latency=`, may ask for, in milliseconds. */
export const MAX_LATENCY_MS = 60_000;

/** What a client asked for with `Prefer`: Prism's vocabulary (`code`, `example`, `dynamic`), plus latency and faults. */
export interface Preference {
  code?: number;
  example?: string;
  dynamic?: boolean;
  /** Milliseconds to wait before answering. */
  latency?: number;
  fault?: FaultName;
}

/**
 * Reads `Prefer: code=404, example=feature-not-found, dynamic=true, latency=250, fault=reset`.
 * Preferences are separated by commas or semicolons; values may be quoted. Unknown preferences are
 * ignored, as RFC 7240 asks; a known one with a value out of its bounds is refused: the sentence
 * saying why is returned instead.
 */
export function parsePrefer(header: string | readonly string[] | undefined): Preference | string {
  if (!header) return {};
  const text = typeof header === "string" ? header : header.join(",");
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
      if (!/^[1-5][0-9][0-9]$/.test(value)) return `Prefer code=${value} is not an HTTP status code`;
      preference.code = Number(value);
    } else if (key === "example") {
      if (!value) return "Prefer example= needs the name of a documented example";
      preference.example = value;
    } else if (key === "dynamic") {
      if (value !== "true" && value !== "false") return `Prefer dynamic=${value} must be true or false`;
      preference.dynamic = value === "true";
    } else if (key === "latency") {
      // Digits only: no sign, fraction, exponent or unit, and no more than the bound allows.
      if (!/^\d{1,5}$/.test(value) || Number(value) > MAX_LATENCY_MS) return `Prefer latency=${value} must be a whole number of milliseconds from 0 to ${MAX_LATENCY_MS}`;
      preference.latency = Number(value);
    } else if (key === "fault") {
      if (!(FAULT_NAMES as readonly string[]).includes(value)) return `Prefer fault=${value} must be one of ${FAULT_NAMES.join(", ")}`;
      preference.fault = value as FaultName;
    }
  }
  return preference;
}

/** A preference as the header's value: `code=404, example=feature-not-found`; empty when it asks nothing. */
export function formatPrefer(preference: Preference): string {
  const order: Array<keyof Preference> = ["code", "example", "dynamic", "latency", "fault"];
  return order.filter((key) => preference[key] !== undefined).map((key) => `${key}=${String(preference[key])}`).join(", ");
}
