import { createWebdataClient } from "@api-contracts/webdata-client";

const client = createWebdataClient({ apiKey: process.env.WEBDATA_API_KEY ?? "" });

const { data, error } = await client.POST("/v2/crawl", {
  body: { url: "https://docs.example.com", limit: 100 },
});
if (error) throw new Error(error.error);

// The crawl runs in the background; keep the id to follow or cancel it.
console.log("crawl", data.id, "status at", data.url);
