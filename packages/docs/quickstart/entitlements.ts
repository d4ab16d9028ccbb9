import { createEntitlementsClient } from "@api-contracts/entitlements-client";

// The mock checks that a bearer key is present, not which one.
const entitlements = createEntitlementsClient({ apiKey: "am_sk_test_local", baseUrl: "http://127.0.0.1:4011" });

const { data, error } = await entitlements.POST("/v1/balances.check", {
  body: { customer_id: "cus_2w5dzidzFD1cESxOGnn9frVuVcm", feature_id: "messages" },
});
if (error) throw new Error(`${error.code}: ${error.message}`);
console.log(data.allowed ? "allowed" : "denied");
