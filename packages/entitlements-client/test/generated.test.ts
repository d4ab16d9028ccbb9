import { expect, it } from "vitest";
import { generatedDrift } from "./support/checks.js";

it("src/generated/entitlements.ts is what openapi-typescript makes of the current bundle", async () => {
  const result = await generatedDrift("entitlements");
  expect(result.reason ?? "up to date").toBe("up to date");
  expect(result.stale).toBe(false);
}, 60_000);
