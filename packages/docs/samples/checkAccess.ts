import { createEntitlementsClient } from "@api-contracts/entitlements-client";

const client = createEntitlementsClient({ apiKey: process.env.ENTITLEMENTS_API_KEY ?? "" });

const { data, error } = await client.POST("/v1/balances.check", {
  body: { customer_id: "cus_2w5dzidzFD1cESxOGnn9frVuVcm", feature_id: "messages" },
});
if (error) throw new Error(`${error.code}: ${error.message}`);

// Denied access is an answer, not an error: read `allowed`.
if (data.allowed) {
  console.log("allowed, remaining:", data.balance?.remaining ?? "unlimited or boolean feature");
} else {
  console.log("denied");
}
