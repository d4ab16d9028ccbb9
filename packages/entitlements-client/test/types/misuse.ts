// Compiled by types.test.ts: every line under @ts-expect-error must fail to compile, and the rest must compile.
import { createEntitlementsClient, type Balance, type CheckResponse, type Preview } from "../../src/index.js";

const client = createEntitlementsClient({ apiKey: "am_sk_test" });

export async function misuse(): Promise<void> {
  // @ts-expect-error -- a path the API does not have
  await client.POST("/v1/balances.chek", { body: { customer_id: "c", feature_id: "f" } });
  // @ts-expect-error -- a method the path does not have
  await client.GET("/v1/balances.check");
  // @ts-expect-error -- customer_id is required
  await client.POST("/v1/balances.check", { body: { feature_id: "f" } });
  // @ts-expect-error -- action is "confirm" or "release"
  await client.POST("/v1/balances.finalize", { body: { lock_id: "l", action: "commit" } });
  // @ts-expect-error -- a lock must be enabled: true
  await client.POST("/v1/balances.check", { body: { customer_id: "c", feature_id: "f", lock: { enabled: false, lock_id: "l" } } });
  // @ts-expect-error -- apiKey is required
  createEntitlementsClient({ baseUrl: "http://localhost" });

  const { data, error } = await client.POST("/v1/balances.check", { body: { customer_id: "c", feature_id: "f" } });
  if (error) {
    const code: string = error.code;
    // @ts-expect-error -- env is "sandbox" or "live"
    const env: "test" = error.env;
    void code, env;
    return;
  }
  const decision: CheckResponse | undefined = data;
  const balance: Balance | null | undefined = decision?.balance;
  // @ts-expect-error -- a balance may be null, so it must be narrowed first
  const remaining: number = decision?.balance.remaining;
  const preview: Preview | null | undefined = decision?.preview;
  void balance, remaining, preview;
}
