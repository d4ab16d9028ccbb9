import { createWebdataClient } from "@api-contracts/webdata-client";

const client = createWebdataClient({ apiKey: process.env.WEBDATA_API_KEY ?? "" });

// Same list as GET /v2/interact, under the path older integrations call.
const { data, error } = await client.GET("/v2/browser", {
  params: { query: { status: "active" } },
});
if (error) throw new Error(error.error);

console.log(data.sessions.length, "active sessions");
