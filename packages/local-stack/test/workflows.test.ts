// The Arazzo workflows of spec/workflows, run with `redocly respect` against the stateful mock
// (`api-mock --stateful`, which serves the reference implementation).
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { defaultFixtures } from "@api-contracts/reference-server";
import { startApiServer, type RunningServer } from "../src/index.js";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const cliPackage = require.resolve("@redocly/cli/package.json");
const redocly = path.join(path.dirname(cliPackage), (require("@redocly/cli/package.json") as { bin: Record<string, string> }).bin.redocly!);

const APIS = [
  { api: "entitlements", workflows: 3 },
  { api: "webdata", workflows: 1 },
] as const;

const TARGETS: Array<{ name: string; start: (api: "entitlements" | "webdata") => Promise<RunningServer | { url: string; close(): Promise<void> }> }> = [
  { name: "the stateful mock (api-mock --stateful)", start: (api) => startApiServer({ api, port: 0, stateful: true }) },
];

describe.each(TARGETS)("Arazzo workflows against $name", ({ start }) => {
  it.each(APIS)("every $api workflow passes under redocly respect", async ({ api, workflows: count }) => {
    const server = await start(api);
    try {
      const { stdout } = await run(
        process.execPath,
        [redocly, "respect", require.resolve(`@api-contracts/spec/workflows/${api}.arazzo.yaml`), "--server", `${api}=${server.url}`, "--input", `apiKey=${defaultFixtures.api_keys[api]}`],
        // Offline and quiet: no telemetry, no update check, no colours to strip.
        { env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1", FORCE_COLOR: "0" }, maxBuffer: 8 * 1024 * 1024 },
      );
      expect(stdout).toMatch(new RegExp(`Workflows: ${count} passed, ${count} total`));
    } finally {
      await server.close();
    }
  });
});
