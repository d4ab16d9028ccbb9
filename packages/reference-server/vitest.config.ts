import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/*.test.ts"],
    // The machine is shared and small: generous limits, no timed assertions.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
