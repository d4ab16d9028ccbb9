import { expect, it } from "vitest";
import { generatedDrift } from "../../entitlements-client/test/support/checks.js";

it("src/generated/webdata.ts is what openapi-typescript makes of the current bundle", async () => {
  const result = await generatedDrift("webdata");
  expect(result.reason ?? "up to date").toBe("up to date");
  expect(result.stale).toBe(false);
}, 60_000);
