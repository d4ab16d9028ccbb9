import { defineConfig } from "vitest/config";

// Offline only: the tests judge the request list and the record format, never start the server.
export default defineConfig({ test: { include: ["test/*.test.mjs"], testTimeout: 60_000 } });
