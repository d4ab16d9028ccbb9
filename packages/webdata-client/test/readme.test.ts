import { afterAll, beforeAll, expect, it } from "vitest";
import { WEBDATA_BASE_URL } from "../src/index.js";
import { runReadmeExample } from "../../entitlements-client/test/support/checks.js";
import { loadBundle, specExample, startExampleServer, type LocalServer } from "../../entitlements-client/test/support/servers.js";

let server: LocalServer;
beforeAll(async () => {
  server = await startExampleServer("webdata");
});
afterAll(() => server.close());

it("the README example compiles and prints the id of the started crawl (here: the spec's example)", async () => {
  const { diagnostics, stdout } = await runReadmeExample("webdata-client", WEBDATA_BASE_URL, server.url, { FIRECRAWL_API_KEY: "fc-test" });
  expect(diagnostics).toEqual([]);
  const example = specExample(loadBundle("webdata"), "POST", "/v2/crawl").body as { id: string };
  expect(stdout.trim()).toBe(`crawl started: ${example.id}`);
  expect(server.requests.at(-1)?.headers.authorization).toBe("Bearer fc-test");
}, 120_000);
