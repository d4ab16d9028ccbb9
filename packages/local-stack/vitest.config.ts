import { defineConfig } from "vitest/config";

// Tests start child processes on a shared two-core machine: one file at a time, generous limits.
export default defineConfig({ test: { include: ["test/*.test.ts"], testTimeout: 120_000, hookTimeout: 60_000, fileParallelism: false } });
