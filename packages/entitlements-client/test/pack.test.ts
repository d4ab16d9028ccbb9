import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { installPacked, packedFiles, type Consumer } from "./support/consumer.js";
import { loadBundle, specExample } from "./support/servers.js";

const program = `
import { createEntitlementsClient, type CheckResponse, type EntitlementsError } from "@api-contracts/entitlements-client";

const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: process.env.BASE_URL, retry: true, timeoutMs: 5000 });
const checked = await client.POST("/v1/balances.check", { body: { customer_id: "cus_1", feature_id: "messages" } });
const decision: CheckResponse | undefined = checked.data;
const tracked = await client.POST("/v1/balances.track", {
  body: { customer_id: "cus_1", feature_id: "messages" },
  headers: { Prefer: "code=404" },
});
const failure: EntitlementsError | undefined = tracked.error;
// @ts-expect-error -- the installed types reject an unknown path
const unknown = await client.POST("/v1/nope", { body: {} });
console.log(JSON.stringify({ allowed: decision?.allowed, status: tracked.response.status, code: failure?.code, unknown: unknown.response.status }));
`;

let consumer: Consumer;
beforeAll(() => {
  consumer = installPacked(["entitlements-client"]);
}, 180_000);
afterAll(() => consumer?.remove());

it("the tarball holds the build and its types, not sources or tests", () => {
  const files = packedFiles("entitlements-client");
  expect(files).toEqual(expect.arrayContaining(["dist/index.js", "dist/index.d.ts", "dist/middleware.js", "dist/generated/entitlements.d.ts", "package.json", "README.md"]));
  expect(files.filter((f) => !f.startsWith("dist/") && !["package.json", "README.md"].includes(f))).toEqual([]);
});

it("a fresh project that installs the tarball type-checks a program against it and runs it against the mock server", async () => {
  expect(consumer.compile(program)).toEqual([]);
  const output = JSON.parse(await consumer.run({ BASE_URL: inject("mockUrl") })) as Record<string, unknown>;
  const bundle = loadBundle("entitlements");
  const decision = specExample(bundle, "POST", "/v1/balances.check").body as { allowed: boolean };
  const notFound = specExample(bundle, "POST", "/v1/balances.track", "404").body as { code: string };
  // The mock answers a path the API does not have with its documented 400.
  expect(output).toEqual({ allowed: decision.allowed, status: 404, code: notFound.code, unknown: 400 });
}, 120_000);
