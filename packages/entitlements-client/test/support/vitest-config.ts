// The vitest settings both client packages share.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import type { Service } from "@api-contracts/mock-server";

declare module "vitest" {
  export interface ProvidedContext {
    /** The API whose mock server the run needs. */
    mockService: Service;
    /** Root URL of that mock server, e.g. http://127.0.0.1:40123; set by ./mock-server.ts. */
    mockUrl: string;
  }
}

/** Runs `test/*.test.ts` with one mock server of `service` for all files, and generous timeouts for a shared machine. */
export function clientTestConfig(service: Service) {
  return defineConfig({
    test: {
      include: ["test/**/*.test.ts"],
      globalSetup: [fileURLToPath(new URL("./mock-server.ts", import.meta.url))],
      provide: { mockService: service },
      testTimeout: 60_000,
      hookTimeout: 180_000,
    },
  });
}
