// npm run bench: this client's size and per-call overhead next to firecrawl-js and plain fetch.
import { fileURLToPath } from "node:url";
import { runClientBench } from "@api-contracts/dev-tools/bench";
import { createWebdataClient } from "@api-contracts/webdata-client";
import { retry } from "@api-contracts/webdata-client/middleware";

await runClientBench({
  sizes: [
    ["@api-contracts/webdata-client", `export { createWebdataClient } from "@api-contracts/webdata-client";`],
    ["@mendable/firecrawl-js (official SDK)", `export { Firecrawl } from "@mendable/firecrawl-js";`],
  ],
  resolveDir: fileURLToPath(new URL(".", import.meta.url)),
  answer: JSON.stringify({ success: true, data: { remainingTokens: 1000, planTokens: 5000, billingPeriodStart: null, billingPeriodEnd: null } }),
  plain: (baseUrl) => () => fetch(`${baseUrl}/v2/team/token-usage`, { headers: { authorization: "Bearer key" } }).then((r) => r.json()),
  client: (baseUrl, { timeoutMs, retry: retrying }) => {
    const client = createWebdataClient({ apiKey: "key", baseUrl, timeoutMs, retry: retrying ? retry() : undefined });
    return () => client.GET("/v2/team/token-usage");
  },
});
