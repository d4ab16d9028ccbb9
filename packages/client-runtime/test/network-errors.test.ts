// What each runtime's fetch throws when no answer comes, and when it refuses to send a request, as
// observed (Node 20 with undici, Bun 1.3.14, and the browsers' documented messages), and what the
// retry makes of it.
import { afterEach, describe, expect, it } from "vitest";
import { isNetworkError, retry, type RetryEvent } from "../src/middleware.js";
import { startServer, type LocalServer } from "@api-contracts/dev-tools/testing";
import { createThingsClient, thing } from "./support/things.js";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
const bunClosed = "The socket connection was closed unexpectedly. For more information, pass `verbose: true` in the second argument to fetch()";

const networkFailures: Record<string, Error> = {
  "Node: reset (fetch failed, the cause holds the code)": new TypeError("fetch failed", { cause: withCode("read ECONNRESET", "ECONNRESET") }),
  "Node: refused": new TypeError("fetch failed", { cause: withCode("connect ECONNREFUSED 127.0.0.1:5511", "ECONNREFUSED") }),
  "Node: closed before an answer": new TypeError("fetch failed", { cause: withCode("other side closed", "UND_ERR_SOCKET") }),
  "Node: no such host": new TypeError("fetch failed", { cause: withCode("getaddrinfo ENOTFOUND api.example.com", "ENOTFOUND") }),
  "Node: a body cut off": new TypeError("terminated", { cause: withCode("other side closed", "UND_ERR_SOCKET") }),
  "Chromium": new TypeError("Failed to fetch"),
  "Firefox": new TypeError("NetworkError when attempting to fetch resource."),
  "Safari": new TypeError("Load failed"),
  "Bun: reset or closed": withCode(bunClosed, "ECONNRESET"),
  "Bun: refused, or no such host": withCode("Unable to connect. Is the computer able to access the url?", "ConnectionRefused"),
  "Bun: closed before an answer": withCode(bunClosed, "ConnectionClosed"),
  "Bun: no socket": withCode("Was there a typo in the url or port?", "FailedToOpenSocket"),
};

// What a fetch throws for a request it will never send, whatever the network does: a mistake in
// the configuration or the code, which no retry mends and fail-open must not hide.
const otherFailures: Record<string, unknown> = {
  "Node: a scheme it does not fetch (ftp:, or localhost: of \"localhost:5511\")": new TypeError("fetch failed", { cause: new Error("unknown scheme") }),
  "Node: a port fetch never connects to": new TypeError("fetch failed", { cause: new Error("bad port") }),
  "Node: a TLS failure (https: to a plain HTTP port, a certificate not trusted)": new TypeError("fetch failed", { cause: withCode("ssl3_get_record:wrong version number", "ERR_SSL_WRONG_VERSION_NUMBER") }),
  "Node: a URL that does not parse": new TypeError("Failed to parse URL from /v1/things", { cause: withCode("Invalid URL", "ERR_INVALID_URL") }),
  "Node: an invalid header value": new TypeError('Headers.append: "a\nb" is an invalid header value.'),
  "Bun: a scheme it does not fetch": Object.assign(new TypeError("protocol must be http:, https: or s3:"), { code: "ERR_INVALID_ARG_VALUE" }),
  "Bun: a URL that does not parse": Object.assign(new TypeError("fetch() URL is invalid"), { code: "ERR_INVALID_URL" }),
  "a TypeError of a bug in a fetch of the caller's": new TypeError("Cannot read properties of undefined (reading 'headers')"),
  "a timeout (DOMException TimeoutError, code 23)": new DOMException("The operation was aborted due to timeout", "TimeoutError"),
  "an abort (DOMException AbortError, code 20)": new DOMException("This operation was aborted", "AbortError"),
  "a plain Error": new Error("boom"),
  "an Error with another code": withCode("bad", "ERR_INVALID_ARG_TYPE"),
  "a non-Error with a network code": { code: "ECONNRESET" },
  "a string": "ECONNRESET",
};

describe("isNetworkError", () => {
  for (const [runtime, error] of Object.entries(networkFailures)) {
    it(`is true for ${runtime}`, () => expect(isNetworkError(error)).toBe(true));
  }
  for (const [what, error] of Object.entries(otherFailures)) {
    it(`is false for ${what}`, () => expect(isNetworkError(error)).toBe(false));
  }
});

describe("retry after the network errors of every runtime", () => {
  let server: LocalServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** A fetch that throws `failure` on its first call and then reaches the local server. */
  const failingOnce = (failure: unknown) => {
    let calls = 0;
    return (request: Request) => (calls++ === 0 ? Promise.reject(failure) : fetch(request));
  };

  for (const [runtime, error] of Object.entries(networkFailures)) {
    it(`retries ${runtime}`, async () => {
      server = await startServer((_request, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(thing)));
      const retries: RetryEvent[] = [];
      const client = createThingsClient({ apiKey: "k", baseUrl: server.url, fetch: failingOnce(error), retry: retry({ baseDelayMs: 1, onRetry: (event) => retries.push(event) }) });
      const { data } = await client.GET("/v1/things");
      expect(data).toEqual(thing);
      expect(retries.map((event) => event.reason)).toEqual(["network-error"]);
    });
  }

  it("does not retry a request fetch refuses to send (a per-call baseUrl of scheme ftp:), and hands its error to the caller", async () => {
    const retries: RetryEvent[] = [];
    const client = createThingsClient({ apiKey: "k", baseUrl: "http://127.0.0.1:9", retry: retry({ baseDelayMs: 1, onRetry: (event) => retries.push(event) }) });
    await expect(client.GET("/v1/things", { baseUrl: "ftp://x" })).rejects.toThrow(TypeError);
    expect(retries).toEqual([]);
  });

  it("does not retry an abort, and hands it to the caller as it is", async () => {
    const abort = otherFailures["an abort (DOMException AbortError, code 20)"];
    const client = createThingsClient({ apiKey: "k", baseUrl: "http://127.0.0.1:9", fetch: failingOnce(abort), retry: retry({ baseDelayMs: 1 }) });
    await expect(client.GET("/v1/things")).rejects.toBe(abort);
  });
});
