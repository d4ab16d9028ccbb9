import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createEntitlementsClient, ENTITLEMENTS_BASE_URL, type Balance, type CheckResponse } from "../src/index.js";
import { loadBundle, sendJson, specExample, startServer, type LocalServer } from "@api-contracts/dev-tools/testing";

const bundle = loadBundle("entitlements");
const mockUrl = inject("mockUrl");
// Records what goes over the wire; the mock server answers everything else.
let recorder: LocalServer;
beforeAll(async () => {
  recorder = await startServer((_request, res) => sendJson(res, 200, { allowed: true, customer_id: "cus_1", balance: null, flag: null }));
});
afterAll(() => recorder.close());

const prefer = (value: string) => ({ headers: { Prefer: value } });

describe("createEntitlementsClient", () => {
  it("rejects a missing or blank API key at construction", () => {
    expect(() => createEntitlementsClient({ apiKey: undefined })).toThrow(/createEntitlementsClient: apiKey is required/);
    expect(() => createEntitlementsClient({ apiKey: " " })).toThrow(TypeError);
    // @ts-expect-error -- options are required
    expect(() => createEntitlementsClient()).toThrow(/apiKey is required/);
  });

  it("refuses at construction a baseUrl that is not an http:// or https:// URL", () => {
    for (const baseUrl of ["/api", "localhost:5511", "ftp://x"]) {
      expect(() => createEntitlementsClient({ apiKey: "am_sk_test", baseUrl }), baseUrl).toThrow(`createEntitlementsClient: baseUrl must be an http:// or https:// URL, got "${baseUrl}"`);
    }
  });

  it("talks to the live service unless baseUrl says otherwise", async () => {
    const seen: string[] = [];
    const client = createEntitlementsClient({
      apiKey: "am_sk_test",
      fetch: async (request) => {
        seen.push(request.url);
        return new Response("{}", { status: 200, headers: { "content-type": "application/json" } });
      },
    });
    await client.POST("/v1/balances.check", { body: { customer_id: "cus_1", feature_id: "messages" } });
    expect(seen).toEqual([`${ENTITLEMENTS_BASE_URL}/v1/balances.check`]);
  });

  it("sends the key as a bearer token, the API version and custom headers", async () => {
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: recorder.url, apiVersion: "2.4.0", headers: { "x-trace": "t1" } });
    await client.POST("/v1/balances.check", { body: { customer_id: "cus_1", feature_id: "messages" } });
    const sent = recorder.requests.at(-1);
    expect(sent?.headers.authorization).toBe("Bearer am_sk_test");
    expect(sent?.headers["x-api-version"]).toBe("2.4.0");
    expect(sent?.headers["x-trace"]).toBe("t1");
    expect(JSON.parse(sent?.body ?? "")).toEqual({ customer_id: "cus_1", feature_id: "messages" });
  });

  it("check: returns the documented decision as typed data", async () => {
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: mockUrl });
    const { data, error, response } = await client.POST("/v1/balances.check", {
      body: { customer_id: "cus_1", feature_id: "messages" },
      ...prefer("example=denied-usage-limit"),
    });
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    const decision: CheckResponse | undefined = data;
    const balance: Balance | null | undefined = decision?.balance;
    expect(decision).toEqual(specExample(bundle, "POST", "/v1/balances.check", "200", "denied-usage-limit").body);
    expect(decision?.allowed).toBe(false);
    expect(balance).not.toBeUndefined();
  });

  it("errors come back in the documented error shape, not as exceptions", async () => {
    const client = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: mockUrl });
    const { data, error, response } = await client.POST("/v1/balances.track", {
      body: { customer_id: "cus_unknown", feature_id: "messages" },
      ...prefer("code=404"),
    });
    expect(data).toBeUndefined();
    expect(response.status).toBe(404);
    expect(error).toEqual(specExample(bundle, "POST", "/v1/balances.track", "404").body);
    expect(typeof error?.code).toBe("string");
    expect(["sandbox", "live"]).toContain(error?.env);
  });
});
