import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Generous for a shared machine: the pack test runs npm.
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
