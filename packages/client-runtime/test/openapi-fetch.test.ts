// What ClientRequest and createApiClient take for granted about openapi-fetch. Each rule is checked
// against openapi-fetch itself, with a recording Request class, so that an upgrade which changes
// one of them fails here rather than as a subtle fault of the clients.
import createClient, { type Middleware } from "openapi-fetch";
import { describe, expect, it } from "vitest";
import type { paths } from "./support/things.js";

const baseUrl = "http://127.0.0.1:1";
const thing = { name: "box" };

interface Built {
  input: unknown;
  init: RequestInit;
  instance: object;
}

/** A Request stand-in that records how openapi-fetch constructs it. */
function recordingRequest() {
  const built: Built[] = [];
  class RecordedRequest {
    readonly url: string;
    readonly method: string;
    readonly headers: Headers;
    constructor(input: string, init: RequestInit) {
      built.push({ input, init, instance: this });
      this.url = input;
      this.method = init.method ?? "GET";
      this.headers = init.headers as Headers;
    }
    static [Symbol.hasInstance](value: unknown): boolean {
      return typeof value === "object" && value !== null && "accepted" in value;
    }
  }
  return { built, RecordedRequest };
}

function client(middleware: Middleware[] = [], headers: Record<string, string> = { Authorization: "Bearer k" }) {
  const { built, RecordedRequest } = recordingRequest();
  const sent: unknown[][] = [];
  const things = createClient<paths>({
    baseUrl,
    headers,
    Request: RecordedRequest as unknown as typeof Request,
    fetch: async (...args: unknown[]) => {
      sent.push(args);
      return Response.json(thing);
    },
  });
  things.use(...middleware);
  return { things, built, sent };
}

describe("openapi-fetch, as the clients rely on it", () => {
  it("builds each call's request with the Request class of its options, from the URL as a string", async () => {
    const { things, built } = client();
    await things.GET("/v1/things");
    expect(built).toHaveLength(1);
    expect(built[0]!.input).toBe(`${baseUrl}/v1/things`);
  });

  it("passes a Headers object of its own per call, holding the default headers, so the request may keep it", async () => {
    const { things, built } = client();
    await things.GET("/v1/things");
    await things.GET("/v1/things");
    const [first, second] = built.map((b) => b.init.headers);
    expect(first).toBeInstanceOf(Headers);
    expect(first).not.toBe(second);
    expect((first as Headers).get("authorization")).toBe("Bearer k");
  });

  it("passes a JSON body as its serialized text with a JSON content type, and the method in upper case", async () => {
    const { things, built } = client();
    await things.POST("/v1/things", { body: thing });
    const { init } = built[0]!;
    expect([init.method, init.body, (init.headers as Headers).get("content-type")]).toEqual(["POST", JSON.stringify(thing), "application/json"]);
  });

  it("passes a call's other RequestInit members and its signal in the init, with redirect follow by default", async () => {
    const { things, built } = client();
    const signal = new AbortController().signal;
    await things.GET("/v1/things", { keepalive: true, cache: "no-store", signal });
    const { init } = built[0]!;
    expect([init.keepalive, init.cache, init.signal, init.redirect]).toEqual([true, "no-store", signal, "follow"]);
  });

  it("hands its fetch the request object it built, with no init of its own, whether or not middleware run", async () => {
    for (const middleware of [[], [{ onRequest: () => undefined }]]) {
      const { things, built, sent } = client(middleware);
      await things.GET("/v1/things");
      expect(sent).toEqual([[built[0]!.instance, undefined]]);
    }
  });

  it("accepts what onRequest returns by instanceof on the Request class of its options", async () => {
    const replacement = { accepted: true, url: `${baseUrl}/v1/others`, method: "GET", headers: new Headers() };
    const { things, sent } = client([{ onRequest: () => replacement as unknown as Request }]);
    await things.GET("/v1/things");
    expect(sent[0]![0]).toBe(replacement);
    const refused = client([{ onRequest: () => ({ url: "x" }) as unknown as Request }]);
    await expect(refused.things.GET("/v1/things")).rejects.toThrow(/onRequest: must return new Request\(\)/);
  });

  it("leaves out an undefined middleware and refuses anything else that is not one, such as true", () => {
    const { things } = client();
    expect(() => things.use(undefined as unknown as Middleware)).not.toThrow();
    expect(() => things.use(true as unknown as Middleware)).toThrow(/Middleware must be an object/);
    expect(() => things.use({ retries: 3 } as unknown as Middleware)).toThrow(/Middleware must be an object/);
  });

  it("gives onResponse and onError the request that was sent", async () => {
    const seen: unknown[] = [];
    const { things, sent } = client([{ onResponse: ({ request }) => void seen.push(request) }]);
    await things.GET("/v1/things");
    expect(seen).toEqual([sent[0]![0]]);
  });
});
