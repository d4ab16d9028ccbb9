import { createWebdataClient } from "@api-contracts/webdata-client";

const client = createWebdataClient({ apiKey: process.env.WEBDATA_API_KEY ?? "" });

// byApiKey splits each month by the key that spent the credits.
const { data, error } = await client.GET("/v2/team/credit-usage/historical", {
  params: { query: { byApiKey: true } },
});
if (error) throw new Error(error.error);

for (const period of data.periods) {
  console.log(period.startDate, period.apiKey ?? "all keys", period.totalCredits);
}
