import { createEntitlementsClient } from "@api-contracts/entitlements-client";

const client = createEntitlementsClient({ apiKey: process.env.ENTITLEMENTS_API_KEY ?? "" });

// Same answer as POST /v1/balances.check; new code should call that path instead.
const { data, error } = await client.POST("/v1/check", {
  body: { customer_id: "cus_2w5dzidzFD1cESxOGnn9frVuVcm", feature_id: "messages" },
});
if (error) throw new Error(`${error.code}: ${error.message}`);

console.log(data.allowed ? "allowed" : "denied");
