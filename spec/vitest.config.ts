import { defineConfig } from "vitest/config";

// Bundling both descriptions with Redocly takes seconds on a loaded two-core machine.
export default defineConfig({ test: { testTimeout: 60_000 } });
