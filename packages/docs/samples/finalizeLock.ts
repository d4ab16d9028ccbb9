import { createEntitlementsClient } from "@api-contracts/entitlements-client";

const client = createEntitlementsClient({ apiKey: process.env.ENTITLEMENTS_API_KEY ?? "" });

// Commits the amount a check held under this lock; use action "release" to give it back.
const { data, error } = await client.POST("/v1/balances.finalize", {
  body: { lock_id: "lock_msg_7f3a9c", action: "confirm" },
});
if (error) throw new Error(`${error.code}: ${error.message}`);

console.log("finalized:", data.success);
