import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { compile } from "@api-contracts/dev-tools/testing";

it("a wrong path, a missing required member or a wrong enum value does not compile", () => {
  // Each misuse carries @ts-expect-error: a misuse that compiled would surface as an unused directive.
  expect(compile([fileURLToPath(new URL("./types/misuse.ts", import.meta.url))])).toEqual([]);
}, 60_000);

it("a verified webhook event narrows by its type, and an event no webhook sends does not compile", () => {
  expect(compile([fileURLToPath(new URL("./types/webhooks.ts", import.meta.url))])).toEqual([]);
}, 60_000);
