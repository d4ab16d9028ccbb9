// What the benches of this package share: their command-line options and the median of rounds.
import { parseArgs } from "node:util";

/** `--duration` (seconds per round), `--rounds`, `--connections`, and any `extra` string options, as numbers. */
export function benchOptions(extra = {}) {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "5" },
      rounds: { type: "string", default: "3" },
      connections: { type: "string", default: "10" },
      ...Object.fromEntries(Object.entries(extra).map(([name, fallback]) => [name, { type: "string", default: fallback }])),
    },
  });
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, Number(value)]));
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
