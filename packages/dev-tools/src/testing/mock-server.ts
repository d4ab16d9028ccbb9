// A vitest globalSetup for a client's tests: starts a mock server of the API under test once per
// run and hands its URL to every test file as `inject("mockUrl")`. The client passes its mock
// server's start function, so this package depends on no server.
import type { TestProject } from "vitest/node";

/** The part of a mock server's API a client's tests need. */
export type StartMockServer<Service extends string> = (options: { service: Service; host: string; port: number }) => Promise<{ url: string; close(): Promise<void> }>;

/** The default export of a client's globalSetup file: `export default mockServerSetup(startMockServer)`. */
export function mockServerSetup<Service extends string>(start: StartMockServer<Service>) {
  return async (project: TestProject) => {
    // vitest.config.ts names the service (clientTestConfig); the mock rejects one it does not know.
    const service = project.getProvidedContext().mockService as Service;
    const server = await start({ service, host: "127.0.0.1", port: 0 });
    project.provide("mockUrl", server.url);
    return () => server.close();
  };
}
