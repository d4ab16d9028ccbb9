/** What a secret is replaced with wherever a tool prints or writes text. */
export const REDACTED = "[redacted]";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Replaces every occurrence of each secret, in any letter case (a server may echo a key
 * lower-cased, e.g. inside a media type or a path), then whatever `shapes` matches (a global
 * pattern of what keys look like). Longer secrets first, so that a key containing another is
 * hidden whole; literal patterns keep the replacement linear in the text.
 */
export function redactor(secrets: Iterable<string | undefined>, shapes?: RegExp): (text: string) => string {
  const patterns = [...new Set([...secrets].filter((secret): secret is string => typeof secret === "string" && secret !== ""))]
    .sort((a, b) => b.length - a.length)
    .map((secret) => new RegExp(escapeRegExp(secret), "gi"));
  if (shapes) patterns.push(shapes);
  return (text) => patterns.reduce((out, pattern) => out.replace(pattern, REDACTED), text);
}
