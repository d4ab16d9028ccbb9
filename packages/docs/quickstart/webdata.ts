import { createWebdataClient } from "@api-contracts/webdata-client";

// The mock checks that a bearer key is present, not which one.
const webdata = createWebdataClient({ apiKey: "fc-00000000000000000000000000000000", baseUrl: "http://127.0.0.1:4010" });

const { data, error } = await webdata.POST("/v2/crawl", { body: { url: "https://docs.example.com" } });
if (error) throw new Error(error.error);
console.log("crawl started:", data.id);
