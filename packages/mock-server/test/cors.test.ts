// A web app on another origin calls the mock from a browser: every answer allows any origin, and
// preflights are answered before any judgement, unless CORS is turned off.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type RunningServer } from "../src/index.js";
import { post, send } from "./support.js";

const autumnKey = { authorization: "Bearer am_sk_test_0123456789" };
const check = { customer_id: "cus_123", feature_id: "messages" };
const origin = "http://127.0.0.1:5173";
const preflight = (url: string, path: string, method = "POST") =>
  send(url, { method: "OPTIONS", path, headers: { origin, "access-control-request-method": method, "access-control-request-headers": "authorization, content-type, prefer" } });

let mock: RunningServer;
let closed: RunningServer;

beforeAll(async () => {
  [mock, closed] = await Promise.all([startMockServer({ service: "entitlements" }), startMockServer({ service: "entitlements", cors: false })]);
});
afterAll(async () => {
  await Promise.all([mock?.close(), closed?.close()]);
});

describe("CORS", () => {
  it("a preflight is answered 204 with the methods documented at the path and the headers asked for, from any origin", async () => {
    const answer = await preflight(mock.url, "/v1/balances.check");
    expect(answer.status).toBe(204);
    expect(answer.headers["access-control-allow-origin"]).toBe("*");
    expect(answer.headers["access-control-allow-methods"]).toBe("POST");
    expect(answer.headers["access-control-allow-headers"]).toBe("authorization, content-type, prefer");
    expect(answer.text).toBe("");
  });

  it("a preflight for a method or path the API does not serve is let through, so that the API's own 404 reaches the app", async () => {
    const answer = await preflight(mock.url, "/v1/nowhere", "DELETE");
    expect(answer.status).toBe(204);
    expect(answer.headers["access-control-allow-methods"]).toBe("DELETE");
    const refused = await send(mock.url, { method: "DELETE", path: "/v1/nowhere", headers: { ...autumnKey, origin } });
    expect(refused.status).toBe(404);
    expect(refused.headers["access-control-allow-origin"]).toBe("*");
    expect(refused.json).toMatchObject({ code: "invalid_request" });
    const long = await preflight(mock.url, "/v1/balances.check", "X".repeat(33));
    expect(long.headers["access-control-allow-methods"]).toBe("POST");
  });

  it("answers and refusals allow any origin and expose the headers the description documents (Retry-After)", async () => {
    const served = await post(mock.url, "/v1/balances.check", check, { ...autumnKey, origin });
    expect(served.status).toBe(200);
    expect(served.headers["access-control-allow-origin"]).toBe("*");
    expect(served.headers["access-control-expose-headers"]).toMatch(/\bRetry-After\b/i);
    const unavailable = await post(mock.url, "/v1/balances.check", check, { ...autumnKey, origin, prefer: "code=503" });
    expect(unavailable.headers["retry-after"]).toBe("1");
    expect(unavailable.headers["access-control-allow-origin"]).toBe("*");
    const unauthorized = await post(mock.url, "/v1/balances.check", check, { origin });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers["access-control-allow-origin"]).toBe("*");
  });

  it("an OPTIONS request that is not a preflight is judged like any other request", async () => {
    const answer = await send(mock.url, { method: "OPTIONS", path: "/v1/balances.check", headers: autumnKey });
    expect(answer.status).toBe(404);
    expect(answer.json).toMatchObject({ code: "invalid_request", message: expect.stringMatching(/^Method OPTIONS is not allowed on \/v1\/balances\.check/) });
  });

  it("cors: false sends no CORS header, and a preflight is then the API's 404", async () => {
    const served = await post(closed.url, "/v1/balances.check", check, { ...autumnKey, origin });
    expect(served.status).toBe(200);
    expect(served.headers["access-control-allow-origin"]).toBeUndefined();
    const answer = await preflight(closed.url, "/v1/balances.check");
    expect(answer.status).toBe(404);
    expect(answer.headers["access-control-allow-origin"]).toBeUndefined();
  });
});
