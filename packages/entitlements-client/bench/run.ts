// npm run bench: this client's size and per-call overhead next to autumn-js and plain fetch.
import { fileURLToPath } from "node:url";
import { runClientBench } from "@api-contracts/dev-tools/bench";
import { createEntitlementsClient } from "@api-contracts/entitlements-client";
import { retry } from "@api-contracts/entitlements-client/middleware";

const checkBody = { customer_id: "cus_1", feature_id: "sso" };
const headers = { authorization: "Bearer key", "content-type": "application/json" };

await runClientBench({
  sizes: [
    ["@api-contracts/entitlements-client", `export { createEntitlementsClient } from "@api-contracts/entitlements-client";`],
    ["autumn-js (official SDK)", `export { Autumn } from "autumn-js";`],
  ],
  resolveDir: fileURLToPath(new URL(".", import.meta.url)),
  answer: JSON.stringify({ allowed: true, customer_id: "cus_1", balance: null, flag: { id: "f", feature_id: "sso" } }),
  plain: (baseUrl) => () => fetch(`${baseUrl}/v1/balances.check`, { method: "POST", headers, body: JSON.stringify(checkBody) }).then((r) => r.json()),
  client: (baseUrl, { timeoutMs, retry: retrying }) => {
    const client = createEntitlementsClient({ apiKey: "key", baseUrl, timeoutMs, retry: retrying ? retry() : undefined });
    return () => client.POST("/v1/balances.check", { body: checkBody });
  },
});
