import { createWebdataClient } from "@api-contracts/webdata-client";

const client = createWebdataClient({ apiKey: process.env.WEBDATA_API_KEY ?? "" });

const { data, error } = await client.GET("/v2/monitor/{monitorId}", {
  params: { path: { monitorId: "7b0e4c2a-91d5-4f3e-8a6c-2d9f1e5b3a40" } },
});
if (error) throw new Error(error.error);

console.log(data.data.name, "next run:", data.data.nextRunAt ?? "not scheduled");
