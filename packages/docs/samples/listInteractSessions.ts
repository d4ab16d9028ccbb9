import { createWebdataClient } from "@api-contracts/webdata-client";

const client = createWebdataClient({ apiKey: process.env.WEBDATA_API_KEY ?? "" });

const { data, error } = await client.GET("/v2/interact", {
  params: { query: { status: "active" } },
});
if (error) throw new Error(error.error);

for (const session of data.sessions) {
  console.log(session.id, session.status, session.liveViewUrl);
}
