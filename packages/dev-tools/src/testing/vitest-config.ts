// The vitest settings every client package shares.
import type {} from "vitest";
import { defineConfig } from "vitest/config";

declare module "vitest" {
  export interface ProvidedContext {
    /** The API whose mock server the run needs. */
    mockService: string;
    /** Root URL of that mock server, e.g. http://127.0.0.1:40123; set by the globalSetup. */
    mockUrl: string;
  }
}

/**
 * Runs `test/*.test.ts` with one mock server of `service` for all files, started by `globalSetup`
 * (a file of the client that default-exports {@link mockServerSetup}), and generous timeouts for a
 * shared machine.
 */
export function clientTestConfig(service: string, globalSetup = "test/mock-server.ts") {
  return defineConfig({
    test: {
      include: ["test/**/*.test.ts"],
      globalSetup: [globalSetup],
      provide: { mockService: service },
      testTimeout: 60_000,
      hookTimeout: 180_000,
    },
  });
}
