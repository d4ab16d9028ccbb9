import { expect, it } from "vitest";
import { generatedDrift } from "@api-contracts/dev-tools/testing";

it("src/generated/entitlements.ts is what openapi-typescript makes of the bundle, in the working tree and as committed", async () => {
  const result = await generatedDrift("entitlements");
  expect(result.reason ?? "up to date").toBe("up to date");
  expect(result.stale).toBe(false);
}, 60_000);
