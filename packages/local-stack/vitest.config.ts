import { defineConfig } from "vitest/config";

// The machine is shared and has two cores: generous timeouts, and one test file at a time.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
