// Compiled by types.test.ts: every line under @ts-expect-error must fail to compile, and the rest must compile.
import { createWebdataClient, type CrawlStarted, type Monitor, type TokenUsage } from "../../src/index.js";

const client = createWebdataClient({ apiKey: "fc-test" });

export async function misuse(): Promise<void> {
  // @ts-expect-error -- a path the API does not have
  await client.POST("/v2/crawls", { body: { url: "https://example.com" } });
  // @ts-expect-error -- url is required
  await client.POST("/v2/crawl", { body: { limit: 10 } });
  // @ts-expect-error -- sitemap is "include", "skip" or "only"
  await client.POST("/v2/crawl", { body: { url: "https://example.com", sitemap: "always" } });
  // @ts-expect-error -- the status filter is a string (any value is taken live)
  await client.GET("/v2/interact", { params: { query: { status: 1 } } });
  // @ts-expect-error -- the monitor id is a required path parameter
  await client.GET("/v2/monitor/{monitorId}", {});

  const crawl = await client.POST("/v2/crawl", { body: { url: "https://example.com" } });
  if (crawl.error) {
    const message: string = crawl.error.error;
    void message;
    return;
  }
  const started: CrawlStarted = crawl.data;
  const monitor = await client.GET("/v2/monitor/{monitorId}", { params: { path: { monitorId: started.id } } });
  const found: Monitor | undefined = monitor.data?.data;
  const usage = await client.GET("/v2/team/token-usage");
  const tokens: TokenUsage | undefined = usage.data?.data;
  void found, tokens;
}
