import { Webhook } from "standardwebhooks";
import { expect, inject, it } from "vitest";
import { ENTITLEMENTS_BASE_URL } from "../src/index.js";
import { loadBundle, runReadmeExample, runReadmeServer, specExample } from "@api-contracts/dev-tools/testing";

it("the README example compiles and prints the decision of the live service (here: the mock server's first example)", async () => {
  const { diagnostics, stdout } = await runReadmeExample(ENTITLEMENTS_BASE_URL, inject("mockUrl"), { AUTUMN_SECRET_KEY: "am_sk_test" });
  expect(diagnostics).toEqual([]);
  // The mock refuses a call without a well-formed bearer token, so a printed decision also shows the key was sent.
  const example = specExample(loadBundle("entitlements"), "POST", "/v1/balances.check").body as { allowed: boolean; balance: { remaining: number } | null };
  expect(stdout.trim()).toBe(`${example.allowed ? "allowed" : "denied"} ${example.balance?.remaining}`);
}, 120_000);

it("the README's retry and fail-open example compiles and, against the mock, prints the decision", async () => {
  const { diagnostics, stdout } = await runReadmeExample(ENTITLEMENTS_BASE_URL, inject("mockUrl"), { AUTUMN_SECRET_KEY: "am_sk_test" }, "Retries and fail-open");
  expect(diagnostics).toEqual([]);
  const example = specExample(loadBundle("entitlements"), "POST", "/v1/balances.check").body as { allowed: boolean };
  expect(stdout.trim()).toBe(String(example.allowed));
}, 120_000);

it("the README's webhook receiver compiles, prints a signed limit_reached call and refuses a stale one with 401", async () => {
  const bundle = loadBundle("entitlements") as any;
  const body = JSON.stringify(bundle.components.examples["balancesLimitReached-included"].value);
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const headers = (seconds: number) => ({ "content-type": "application/json", "svix-id": "msg_1", "svix-timestamp": String(seconds), "svix-signature": new Webhook(secret).sign("msg_1", new Date(seconds * 1000), body) });
  const { diagnostics, result, stdout } = await runReadmeServer("Receive webhooks", { AUTUMN_WEBHOOK_SECRET: secret }, async (url) => {
    const now = Math.floor(Date.now() / 1000);
    const fresh = await fetch(url, { method: "POST", headers: headers(now), body });
    const stale = await fetch(url, { method: "POST", headers: headers(now - 3600), body });
    return { fresh: fresh.status, stale: stale.status, reason: await stale.text() };
  });
  expect(diagnostics).toEqual([]);
  expect(result).toEqual({ fresh: 204, stale: 401, reason: "timestamp_out_of_tolerance" });
  expect(stdout.trim()).toBe("limit reached: cus_2w5dzidzFD1cESxOGnn9frVuVcm messages included");
}, 120_000);
