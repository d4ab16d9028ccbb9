// Path templates (`/v2/crawl/{id}`): filling them in and reading values back out of a path.

const VARIABLE = /\{([^}]+)\}/g;

/** A concrete path: each `{name}` replaced by its value, percent-encoded; a missing one by `fill(name)`, or empty. */
export function fillPath(template: string, values: Record<string, unknown>, missing: (name: string) => string = () => ""): string {
  return template.replace(VARIABLE, (_, name: string) => (values[name] === undefined ? missing(name) : encodeURIComponent(String(values[name]))));
}

/** Matches a concrete path against a template and returns its decoded variables; undefined when it does not match. */
export function pathMatcher(template: string): (path: string) => Record<string, string> | undefined {
  const names: string[] = [];
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      if (!/^\{[^}]+\}$/.test(part)) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(part.slice(1, -1));
      return "([^/]*)";
    })
    .join("");
  const pattern = new RegExp(`^${source}$`);
  return (path) => {
    const match = pattern.exec(path);
    if (!match) return undefined;
    // A Map, not an object: a variable may be named like an Object member.
    const values = new Map<string, string>();
    names.forEach((name, i) => {
      const raw = match[i + 1]!;
      try {
        values.set(name, decodeURIComponent(raw));
      } catch {
        // A broken escape is still a value, and the schema decides whether it is acceptable.
        values.set(name, raw);
      }
    });
    return Object.fromEntries(values);
  };
}
