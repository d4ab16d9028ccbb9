import { MAX_LATENCY_MS } from "@api-contracts/contract-core";

/** A fault a request asks for: the connection reset, no answer at all, or a body trickled. */
export type PreferredFault = "reset" | "hang" | "slow-body";

/** What a client asked for with the `Prefer` header (RFC 7240): Prism's vocabulary, plus latency and faults. */
export interface Preference {
  code?: number;
  example?: string;
  dynamic?: boolean;
  /** Milliseconds to wait before answering. */
  latency?: number;
  fault?: PreferredFault;
}

const FAULTS: readonly PreferredFault[] = ["reset", "hang", "slow-body"];

/**
 * Reads `Prefer: code=404, example=feature-not-found, dynamic=true, latency=250, fault=reset`.
 * Preferences are separated by commas or semicolons; values may be quoted. Unknown preferences are
 * ignored, as RFC 7240 asks; a known one with a value out of its bounds is refused.
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
    } else if (key === "latency") {
      // Digits only: no sign, fraction, exponent or unit, and no more than the bound allows.
      if (!/^\d{1,5}$/.test(value) || Number(value) > MAX_LATENCY_MS) return `Prefer latency=${value} must be a whole number of milliseconds from 0 to ${MAX_LATENCY_MS}`;
      preference.latency = Number(value);
    } else if (key === "fault") {
      if (!(FAULTS as readonly string[]).includes(value)) return `Prefer fault=${value} must be one of ${FAULTS.join(", ")}`;
      preference.fault = value as PreferredFault;
    }
  }
  return preference;
}
