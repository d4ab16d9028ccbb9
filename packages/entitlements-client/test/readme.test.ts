import { afterAll, beforeAll, expect, it } from "vitest";
import { ENTITLEMENTS_BASE_URL } from "../src/index.js";
import { runReadmeExample } from "./support/checks.js";
import { loadBundle, specExample, startExampleServer, type LocalServer } from "./support/servers.js";

let server: LocalServer;
beforeAll(async () => {
  server = await startExampleServer("entitlements");
});
afterAll(() => server.close());

it("the README example compiles and prints the decision of the live service (here: the spec's first example)", async () => {
  const { diagnostics, stdout } = await runReadmeExample("entitlements-client", ENTITLEMENTS_BASE_URL, server.url, { AUTUMN_SECRET_KEY: "am_sk_test" });
  expect(diagnostics).toEqual([]);
  const example = specExample(loadBundle("entitlements"), "POST", "/v1/balances.check").body as { allowed: boolean; balance: { remaining: number } | null };
  expect(stdout.trim()).toBe(`${example.allowed ? "allowed" : "denied"} ${example.balance?.remaining}`);
  expect(server.requests.at(-1)?.headers.authorization).toBe("Bearer am_sk_test");
}, 120_000);
