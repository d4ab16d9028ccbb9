import { expect, inject, it } from "vitest";
import { ENTITLEMENTS_BASE_URL } from "../src/index.js";
import { loadBundle, runReadmeExample, specExample } from "@api-contracts/dev-tools/testing";

it("the README example compiles and prints the decision of the live service (here: the mock server's first example)", async () => {
  const { diagnostics, stdout } = await runReadmeExample(ENTITLEMENTS_BASE_URL, inject("mockUrl"), { AUTUMN_SECRET_KEY: "am_sk_test" });
  expect(diagnostics).toEqual([]);
  // The mock refuses a call without a well-formed bearer token, so a printed decision also shows the key was sent.
  const example = specExample(loadBundle("entitlements"), "POST", "/v1/balances.check").body as { allowed: boolean; balance: { remaining: number } | null };
  expect(stdout.trim()).toBe(`${example.allowed ? "allowed" : "denied"} ${example.balance?.remaining}`);
}, 120_000);
