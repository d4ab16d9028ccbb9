import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { readFileSync } from "node:fs";
import { filesReachedFromExports, installedPackages, installPacked, loadBundle, packedFiles, specExample, verifyWebhookWhereUsersAre, type Consumer } from "@api-contracts/dev-tools/testing";

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

const PACKAGE = "@api-contracts/entitlements-client";
// A receiver in a fresh project: the Standard Webhooks test vector's key, a fresh call, then a stale one.
const receiver = `
import { Webhook } from "standardwebhooks";
import { verifyWebhook, WebhookVerificationError, type EntitlementsWebhookEvent } from "@api-contracts/entitlements-client";

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const body = '{"type":"balances.limit_reached","data":{"customer_id":"cus_1","feature_id":"messages","limit_type":"included"}}';
const signed = (seconds: number) => ({ "svix-id": "msg_1", "svix-timestamp": String(seconds), "svix-signature": new Webhook(secret).sign("msg_1", new Date(seconds * 1000), body) });
const now = Math.floor(Date.now() / 1000);
const event: EntitlementsWebhookEvent = await verifyWebhook(body, signed(now), secret);
const refused = await verifyWebhook(body, signed(now - 3600), secret).catch((error: unknown) => error instanceof WebhookVerificationError ? error.reason : "other");
console.log(JSON.stringify({ type: event.type, refused }));
`;
const expected = { type: "balances.limit_reached", refused: "timestamp_out_of_tolerance" };
const webType = "balances.usage_alert_triggered";
const webArguments = () => {
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const body = '{"type":"balances.usage_alert_triggered","data":{"customer_id":"c","feature_id":"f","usage_alert":{"threshold":80,"threshold_type":"usage_percentage"}}}';
  const seconds = Math.floor(Date.now() / 1000);
  return [body, new Headers({ "webhook-id": "msg_2", "webhook-timestamp": String(seconds), "webhook-signature": new Webhook(secret).sign("msg_2", new Date(seconds * 1000), body) }), secret];
};

let consumer: Consumer;
beforeAll(() => {
  consumer = installPacked();
}, 180_000);
afterAll(() => consumer?.remove());

it("the tarball holds exactly the files its exports reach, none from another package's folder", () => {
  expect(packedFiles()).toEqual(filesReachedFromExports());
});

it("installs from its tarball and the runtime's, without the network", () => {
  expect(installedPackages(consumer)).toEqual(["client-runtime", "entitlements-client"]);
  expect(consumer.tarballs.slice(0, 2)).toEqual(["api-contracts-entitlements-client-0.1.0.tgz", "api-contracts-client-runtime-0.1.0.tgz"]);
});

it("the README's install line names the tarballs a project needs", () => {
  const install = /^npm install (\.\/.+)$/m.exec(readFileSync("README.md", "utf8"))?.[1]?.split(" ").map((file) => file.replace(/^\.\//, ""));
  expect(install?.sort()).toEqual(consumer.tarballs.filter((file) => file.startsWith("api-contracts-")).sort());
});

it("a fresh project that installs the tarball type-checks a program against it and runs it against the mock server", async () => {
  expect(consumer.compile(program)).toEqual([]);
  const output = JSON.parse(await consumer.run({ BASE_URL: inject("mockUrl") })) as Record<string, unknown>;
  const bundle = loadBundle("entitlements");
  const decision = specExample(bundle, "POST", "/v1/balances.check").body as { allowed: boolean };
  const notFound = specExample(bundle, "POST", "/v1/balances.track", "404").body as { code: string };
  // The mock answers a path the API does not have with a 404 in the API's error shape.
  expect(output).toEqual({ allowed: decision.allowed, status: 404, code: notFound.code, unknown: 404 });
}, 120_000);

it("in the installed package, verifyWebhook works from a Node program and bundled for a runtime with only web-standard globals", async () => {
  const { diagnostics, printed, web } = await verifyWebhookWhereUsersAre(consumer, PACKAGE, receiver, webArguments());
  expect(diagnostics).toEqual([]);
  expect(printed).toEqual(expected);
  expect(web).toMatchObject({ type: webType });
}, 120_000);
