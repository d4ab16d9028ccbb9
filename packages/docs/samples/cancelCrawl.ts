import { createWebdataClient } from "@api-contracts/webdata-client";

const client = createWebdataClient({ apiKey: process.env.WEBDATA_API_KEY ?? "" });

const { data, error } = await client.DELETE("/v2/crawl/{id}", {
  params: { path: { id: "3c1a5d9e-6f2b-4b7a-9d1e-8a2f4c6b0e17" } },
});
if (error) throw new Error(error.error);

console.log(data.status);
