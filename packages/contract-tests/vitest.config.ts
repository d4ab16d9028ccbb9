import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/*.test.ts", "test/reference-server/*.test.ts"],
    // Servers under test share two cores with other suites: generous limits, one file at a time.
    testTimeout: 180_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    // Concurrent tests (the runs against faulty servers) share one process: at most two at a time.
    maxConcurrency: 2,
  },
});
