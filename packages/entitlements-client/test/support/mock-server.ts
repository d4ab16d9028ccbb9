// A vitest globalSetup: starts the project's mock server (packages/mock-server) for the API under
// test, once per run, and hands its URL to every test file as `inject("mockUrl")`. The clients
// cannot list the mock server in package.json (it depends on them, through the reference server),
// so it is imported through the workspace link, and each client's turbo.json builds it first.
import type { TestProject } from "vitest/node";
import { startMockServer } from "@api-contracts/mock-server";

export default async function setup(project: TestProject) {
  const server = await startMockServer({ service: project.getProvidedContext().mockService, host: "127.0.0.1", port: 0 });
  project.provide("mockUrl", server.url);
  return () => server.close();
}
