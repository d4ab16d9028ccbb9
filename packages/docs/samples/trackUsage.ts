import { createEntitlementsClient } from "@api-contracts/entitlements-client";

const client = createEntitlementsClient({ apiKey: process.env.ENTITLEMENTS_API_KEY ?? "" });

const { data, error } = await client.POST("/v1/balances.track", {
  body: { customer_id: "cus_2w5dzidzFD1cESxOGnn9frVuVcm", feature_id: "messages", value: 1 },
});
if (error) throw new Error(`${error.code}: ${error.message}`);

console.log("recorded", data.value, "remaining:", data.balance?.remaining);
