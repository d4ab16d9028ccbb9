import { createWebdataClient } from "@api-contracts/webdata-client";

const client = createWebdataClient({ apiKey: process.env.WEBDATA_API_KEY ?? "" });

const { data, error } = await client.GET("/v2/team/token-usage");
if (error) throw new Error(error.error);

console.log(`${data.data.remainingTokens} of ${data.data.planTokens} tokens left`);
