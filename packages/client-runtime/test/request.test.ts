// The clients hand openapi-fetch and its middleware a lighter request object than the global
// Request (src/request.ts). These rules keep it a Request for the uses middleware has for one.
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ClientRequest } from "../src/index.js";
import { sendJson, startServer, type LocalServer } from "@api-contracts/dev-tools/testing";
import { createThingsClient, thing as check } from "./support/things.js";

const decision = check;

let recorder: LocalServer;
beforeAll(async () => {
  recorder = await startServer((_request, res) => sendJson(res, 200, decision));
});
afterAll(() => recorder.close());

function client(onRequest: (request: Request) => Promise<Request | undefined> | Request | undefined) {
  const things = createThingsClient({ apiKey: "am_sk_secret", baseUrl: recorder.url });
  things.use({ onRequest: ({ request }) => onRequest(request) });
  return things;
}

describe("the request a middleware receives", () => {
  it("reads like a Request: url, method, headers, clone, json and text", async () => {
    let seen: unknown;
    await client(async (request) => {
      seen = {
        url: request.url,
        method: request.method,
        auth: request.headers.get("authorization"),
        type: request.headers.get("content-type"),
        json: await request.clone().json(),
        text: await request.clone().text(),
        bodyUsed: request.bodyUsed,
      };
      return undefined;
    }).POST("/v1/things", { body: check });
    expect(seen).toEqual({
      url: `${recorder.url}/v1/things`,
      method: "POST",
      auth: "Bearer am_sk_secret",
      type: "application/json",
      json: check,
      text: JSON.stringify(check),
      bodyUsed: false,
    });
  });

  it("sends the headers a middleware sets, replaces or deletes", async () => {
    await client((request) => {
      request.headers.set("x-trace", "t1");
      request.headers.set("content-type", "application/json; charset=utf-8");
      request.headers.delete("authorization");
      return request;
    }).POST("/v1/things", { body: check });
    const sent = recorder.requests.at(-1);
    expect(sent?.headers["x-trace"]).toBe("t1");
    expect(sent?.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(sent?.headers.authorization).toBeUndefined();
    expect(sent?.body).toBe(JSON.stringify(check));
  });

  it("may be replaced by a global Request built from it, body included", async () => {
    await client((request) => new Request(request.url.replace("things", "others"), request)).POST("/v1/things", { body: check });
    const sent = recorder.requests.at(-1);
    expect([sent?.method, sent?.path, sent?.body, sent?.headers.authorization]).toEqual(["POST", "/v1/others", JSON.stringify(check), "Bearer am_sk_secret"]);
  });

  it("still sends its body after a middleware read the body stream", async () => {
    await client(async (request) => {
      await new Response(request.body).text();
      return undefined;
    }).POST("/v1/things", { body: check });
    expect(recorder.requests.at(-1)?.body).toBe(JSON.stringify(check));
  });

  it("shows its method and URL when logged, and no header, so no API key", async () => {
    let logged = "";
    await client((request) => {
      logged = inspect(request, { depth: 10, showHidden: true });
      return undefined;
    }).POST("/v1/things", { body: check });
    expect(logged).toContain(`url: '${recorder.url}/v1/things'`);
    expect(logged).toContain("method: 'POST'");
    expect(logged).not.toMatch(/am_sk_secret|authorization/i);
  });
});

describe("the transport", () => {
  it("sends the JSON body with a Content-Length rather than in chunks", async () => {
    await createThingsClient({ apiKey: "am_sk_test", baseUrl: recorder.url }).POST("/v1/things", { body: check });
    const sent = recorder.requests.at(-1);
    expect(sent?.headers["content-length"]).toBe(String(JSON.stringify(check).length));
    expect(sent?.headers["transfer-encoding"]).toBeUndefined();
  });

  it("aborts a call with the signal given to it", async () => {
    const before = recorder.requests.length;
    const things = createThingsClient({ apiKey: "am_sk_test", baseUrl: recorder.url });
    const failure = await things.POST("/v1/things", { body: check, signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect((failure as Error).name).toBe("AbortError");
    expect(recorder.requests.length).toBe(before);
  });

  it("passes a call's other RequestInit members, such as keepalive, on to fetch", async () => {
    const spy = vi.spyOn(globalThis, "fetch");
    try {
      await createThingsClient({ apiKey: "am_sk_test", baseUrl: recorder.url }).POST("/v1/things", { body: check, keepalive: true, cache: "no-store" });
      const init = spy.mock.calls.at(-1)?.[1];
      expect([init?.keepalive, init?.cache, init?.method, init?.body]).toEqual([true, "no-store", "POST", JSON.stringify(check)]);
    } finally {
      spy.mockRestore();
    }
  });

  it("hands a custom fetch a global Request with the body", async () => {
    const seen: unknown[] = [];
    const things = createThingsClient({
      apiKey: "am_sk_test",
      baseUrl: recorder.url,
      fetch: async (request) => {
        seen.push(request instanceof Request, request.method, request.headers.get("authorization"), await request.text());
        return Response.json(decision);
      },
    });
    await things.POST("/v1/things", { body: check });
    expect(seen).toEqual([true, "POST", "Bearer am_sk_test", JSON.stringify(check)]);
  });
});

describe("ClientRequest", () => {
  const url = "http://127.0.0.1:1/v1/things";

  it("writes the method in upper case and refuses a body on GET, as Request does", () => {
    expect(new ClientRequest(url, { method: "post", body: "{}" }).method).toBe("POST");
    // Request leaves methods other than the six standard ones as given; this class upper-cases every one.
    expect(new ClientRequest(url, { method: "patch", body: "{}" }).method).toBe("PATCH");
    expect(new ClientRequest(url).method).toBe("GET");
    expect(() => new ClientRequest(url, { body: "{}" })).toThrow(TypeError);
  });

  it("lets the body be read once, and clones only an unread body", async () => {
    const request = new ClientRequest(url, { method: "POST", body: '{"a":1}' });
    const copy = request.clone();
    expect(await request.json()).toEqual({ a: 1 });
    expect(request.bodyUsed).toBe(true);
    await expect(request.text()).rejects.toThrow(TypeError);
    expect(() => request.clone()).toThrow(TypeError);
    expect(await copy.text()).toBe('{"a":1}');
  });

  it("copies headers given as a record, and a copy's headers are its own", () => {
    const init = { authorization: "Bearer k" };
    const request = new ClientRequest(url, { method: "POST", headers: init, body: "{}" });
    const copy = new ClientRequest(request, { signal: AbortSignal.abort() });
    copy.headers.set("x-copy", "1");
    init.authorization = "changed";
    expect([request.headers.get("authorization"), request.headers.has("x-copy")]).toEqual(["Bearer k", false]);
    expect([copy.method, copy.headers.get("authorization"), copy.signal.aborted]).toEqual(["POST", "Bearer k", true]);
  });

  it("copies a global Request: method, headers, body and URL", async () => {
    const global = new Request(url, { method: "POST", headers: { "x-trace": "t1" }, body: '{"a":1}' });
    const copy = new ClientRequest(global);
    expect([copy.url, copy.method, copy.headers.get("x-trace"), await copy.text()]).toEqual([url, "POST", "t1", '{"a":1}']);
  });

  it("counts as a Request for openapi-fetch's checks but is told apart from one", () => {
    const global = new Request(url);
    expect(global instanceof ClientRequest).toBe(true);
    expect([ClientRequest.is(global), ClientRequest.is(new ClientRequest(url))]).toEqual([false, true]);
  });
});
