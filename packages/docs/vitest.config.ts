import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The machine is shared with other suites; the browser and tsc runs get room, not deadlines.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
