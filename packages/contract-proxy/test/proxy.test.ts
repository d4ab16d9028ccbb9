import { once } from "node:events";
import { request, type IncomingMessage } from "node:http";
import { createServer as createTcpServer, type AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { OpenApiValidators, loadBundle } from "@api-contracts/contract-core";
import { afterEach, describe, expect, it } from "vitest";
import { startContractProxy, type ContractProxy, type ContractProxyOptions } from "../src/index.js";
import { entitlementsKey, fakeUpstream, json, send, type Upstream } from "./support.js";

const checkExample = (() => {
  const operation = new OpenApiValidators(loadBundle("entitlements")).walkedOperations().find((op) => op.operationId === "checkAccess")!;
  return operation.responses.find((r) => r.status === "200")!.media[0]!.examples[0]!.value as Record<string, unknown>;
})();
const check = JSON.stringify({ customer_id: "cus_123", feature_id: "messages" });
const withKey = { "content-type": "application/json", authorization: `Bearer ${entitlementsKey}` };

let opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.map((s) => s.close()));
  opened = [];
});

async function proxyTo(upstreamUrl: string, options: Partial<ContractProxyOptions> = {}): Promise<ContractProxy> {
  const proxy = await startContractProxy({ service: "entitlements", upstream: upstreamUrl, ...options });
  opened.push(proxy);
  return proxy;
}

async function upstreamAnswering(answer: Parameters<typeof fakeUpstream>[0]): Promise<Upstream> {
  const upstream = await fakeUpstream(answer);
  opened.push(upstream);
  return upstream;
}

/** A TCP server that answers every connection with these bytes (or nothing), for answers node:http would never send. */
async function rawUpstream(bytes: string | undefined): Promise<string> {
  const server = createTcpServer((socket) => {
    socket.on("error", () => {});
    if (bytes !== undefined) socket.end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  opened.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())).then(() => undefined) });
  const sockets = new Set<import("node:net").Socket>();
  server.on("connection", (s) => sockets.add(s));
  opened.push({ close: async () => sockets.forEach((s) => s.destroy()) });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("forwarding is transparent", () => {
  it("method, path under the upstream's base path, query, end-to-end headers and body arrive unchanged; Host names the upstream", async () => {
    const upstream = await upstreamAnswering(json(200, checkExample));
    const proxy = await proxyTo(`${upstream.url}/api/`);
    const proxyHost = new URL(proxy.url).host;
    await send(
      proxy.url,
      "POST",
      "/v1/balances.check?trace=1&trace=2",
      ["Content-Type", "application/json", "X-Custom", "one", "X-Custom", "two", "Connection", "keep-alive, X-Hop", "X-Hop", "dropped", "Keep-Alive", "timeout=5", "Authorization", `Bearer ${entitlementsKey}`, "Host", proxyHost, "Expect", "100-continue"],
      check,
    );
    const [received] = upstream.received;
    expect(received!.method).toBe("POST");
    expect(received!.url).toBe("/api/v1/balances.check?trace=1&trace=2");
    expect(received!.body.toString()).toBe(check);
    const pairs = [];
    for (let i = 0; i < received!.rawHeaders.length; i += 2) pairs.push([received!.rawHeaders[i]!.toLowerCase(), received!.rawHeaders[i + 1]]);
    expect(pairs).toEqual(expect.arrayContaining([["x-custom", "one"], ["x-custom", "two"], ["authorization", `Bearer ${entitlementsKey}`], ["host", new URL(upstream.url).host]]));
    expect(pairs.map(([name]) => name)).not.toContain("x-hop");
    expect(pairs.map(([name]) => name)).not.toContain("keep-alive");
    // The proxy answered the expectation itself, and sends the body without waiting for one.
    expect(pairs.map(([name]) => name)).not.toContain("expect");
  });

  it("the answer's status, headers (repeated ones too) and bytes come back unchanged, plus x-contract-violations", async () => {
    const text = JSON.stringify(checkExample, null, 2);
    const upstream = await upstreamAnswering((_req, res) =>
      res.writeHead(200, "Fine", ["Content-Type", "application/json", "Set-Cookie", "a=1", "Set-Cookie", "b=2", "X-Contract-Violations", "99", "X-Request-Id", "r-1"]).end(text),
    );
    const proxy = await proxyTo(upstream.url);
    const reply = await send(proxy.url, "POST", "/v1/balances.check", withKey, check);
    expect(reply.status).toBe(200);
    expect(reply.text).toBe(text);
    expect(reply.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
    expect(reply.headers["x-request-id"]).toBe("r-1");
    expect(reply.headers["x-contract-violations"]).toBe("0");
  });
});

describe("request targets that are not a path", () => {
  it("an absolute-form target is forwarded in origin-form to the proxy's upstream and judged as the operation it names", async () => {
    const upstream = await upstreamAnswering(json(200, checkExample));
    const proxy = await proxyTo(upstream.url);
    const reply = await send(proxy.url, "POST", "http://elsewhere.example/v1/balances.check?trace=1", withKey, check);
    expect(reply.status).toBe(200);
    expect(reply.headers["x-contract-violations"]).toBe("0");
    expect(upstream.received.map((r) => r.url)).toEqual(["/v1/balances.check?trace=1"]);
  });

  it("OPTIONS * cannot be forwarded: the proxy answers the API's 404 and reports it", async () => {
    const upstream = await upstreamAnswering(json(200, checkExample));
    const proxy = await proxyTo(upstream.url);
    const reply = await send(proxy.url, "OPTIONS", "*");
    expect(reply.status).toBe(404);
    expect(reply.json).toMatchObject({ code: "invalid_request", env: "sandbox" });
    expect(reply.headers["x-contract-violations"]).toBe("1");
    expect(proxy.violations).toMatchObject([{ operationId: null, method: "OPTIONS", path: "*", status: 404, direction: "request", errors: [{ keyword: "operation" }] }]);
    expect(upstream.received).toHaveLength(0);
  });
});

describe("limits", () => {
  it("an answer larger than the judging limit streams through whole and is reported as not judged, not as a violation", async () => {
    const big = JSON.stringify({ ...checkExample, padding: "x".repeat(5000) });
    for (const framing of ["content-length", "chunked"]) {
      const upstream = await upstreamAnswering((_req, res) => {
        res.writeHead(200, framing === "chunked" ? { "content-type": "application/json" } : { "content-type": "application/json", "content-length": Buffer.byteLength(big) });
        res.write(big.slice(0, 100));
        res.end(big.slice(100));
      });
      const proxy = await proxyTo(upstream.url, { judgeLimit: 1024 });
      const reply = await send(proxy.url, "POST", "/v1/balances.check", withKey, check);
      expect(reply.text).toBe(big);
      expect(reply.headers["x-contract-violations"]).toBe("0");
      expect(proxy.counts).toEqual({ exchanges: 1, violations: 0, known: 0, notJudged: 1, injected: 0, deliveries: 0 });
      expect(proxy.violations).toMatchObject([{ operationId: "checkAccess", direction: "response", judged: false, errors: [{ message: "not judged: the body is larger than 1024 bytes" }] }]);
    }
  });

  it("a request body larger than the limit is forwarded whole and reported as not judged", async () => {
    const upstream = await upstreamAnswering(json(200, checkExample));
    const proxy = await proxyTo(upstream.url, { judgeLimit: 1024 });
    const body = JSON.stringify({ customer_id: "cus_123", feature_id: "messages", properties: { note: "y".repeat(4000) } });
    const framings: Array<Record<string, string>> = [{ "content-type": "application/json" }, { "content-type": "application/json", "transfer-encoding": "chunked" }];
    for (const headers of framings) {
      const reply = await send(proxy.url, "POST", "/v1/balances.check", headers, body);
      expect(reply.status).toBe(200);
    }
    expect(upstream.received.map((r) => r.body.toString())).toEqual([body, body]);
    expect(proxy.violations.map((v) => [v.direction, v.judged])).toEqual([["request", false], ["request", false]]);
  });

  it("in strict mode a request body larger than the limit is refused with the API's 413, without reaching the upstream", async () => {
    const upstream = await upstreamAnswering(json(200, checkExample));
    const proxy = await proxyTo(upstream.url, { judgeLimit: 1024, strict: true });
    const reply = await send(proxy.url, "POST", "/v1/balances.check", { "content-type": "application/json" }, JSON.stringify({ pad: "z".repeat(4000) }));
    expect(reply.status).toBe(413);
    expect(reply.json).toEqual({ message: "The request body is larger than 1024 bytes", code: "payload_too_large", env: "sandbox" });
    expect(upstream.received).toHaveLength(0);
  });

  it("an upstream that cannot be reached gives a 502 in the API's error shape", async () => {
    const closed = await fakeUpstream(json(200, {}));
    await closed.close();
    const proxy = await proxyTo(closed.url);
    const reply = await send(proxy.url, "POST", "/v1/balances.check", withKey, check);
    expect(reply.status).toBe(502);
    expect(reply.json).toEqual({ message: "Bad gateway: the upstream could not be reached (ECONNREFUSED)", code: "internal_error", env: "sandbox" });
    const webdata = await proxyTo(closed.url, { service: "webdata" });
    const web = await send(webdata.url, "GET", "/v2/team/token-usage");
    expect(web.json).toEqual({ success: false, error: "Bad gateway: the upstream could not be reached (ECONNREFUSED)" });
  });

  it("an upstream that never answers gives a 502 once the upstream timeout has passed", async () => {
    const silent = await rawUpstream(undefined);
    const proxy = await proxyTo(silent, { upstreamTimeout: 200 });
    const reply = await send(proxy.url, "POST", "/v1/balances.check", withKey, check);
    expect(reply.status).toBe(502);
    expect(reply.json.message).toBe("Bad gateway: the upstream did not answer within 200 ms");
  });

  it("an answer that is not HTTP gives a 502, and the proxy goes on serving", async () => {
    const garbage = await rawUpstream("SMTP ready\r\n\r\n");
    const proxy = await proxyTo(garbage);
    const reply = await send(proxy.url, "POST", "/v1/balances.check", withKey, check);
    expect(reply.status).toBe(502);
    expect(reply.json.message).toBe("Bad gateway: the upstream's answer is not valid HTTP");
    const again = await send(proxy.url, "POST", "/v1/balances.check", withKey, check);
    expect(again.status).toBe(502);
  });

  it("an answer cut short after its head gives a 502 when it was being judged", async () => {
    const cut = await rawUpstream("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"allowed\":");
    const proxy = await proxyTo(cut);
    const reply = await send(proxy.url, "POST", "/v1/balances.check", withKey, check);
    expect(reply.status).toBe(502);
    expect(reply.json.message).toMatch(/^Bad gateway: the upstream closed the connection/);
  });

  it("a compressed answer that inflates past the limit is passed on, not judged", async () => {
    const bomb = gzipSync(JSON.stringify({ ...checkExample, padding: "0".repeat(200_000) }));
    const upstream = await upstreamAnswering((_req, res) => res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(bomb));
    const proxy = await proxyTo(upstream.url, { judgeLimit: 10_000 });
    const reply = await send(proxy.url, "POST", "/v1/balances.check", { ...withKey, "accept-encoding": "gzip" }, check);
    expect(reply.status).toBe(200);
    expect(proxy.violations).toMatchObject([{ judged: false, errors: [{ message: "not judged: the body is larger than 10000 bytes once decoded" }] }]);
  });
});

describe("answers that stream through", () => {
  /** Waits until `count` stops changing, and returns where it stopped. */
  async function settled(count: () => number): Promise<number> {
    let last = -1;
    for (let unchanged = 0; unchanged < 4; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      unchanged = count() === last ? unchanged + 1 : 0;
      last = count();
    }
    return last;
  }

  it("are read from the upstream no faster than the client reads them, and arrive byte for byte", async () => {
    const chunk = Buffer.alloc(64 * 1024, "a");
    const total = 1024 * chunk.length;
    let written = 0;
    const upstream = await upstreamAnswering((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const pump = () => {
        while (written < total) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    });
    const proxy = await proxyTo(upstream.url, { judgeLimit: 1024 });
    const url = new URL(proxy.url);
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, method: "POST", path: "/v1/balances.check", headers: withKey }, (res) => {
        res.pause();
        resolve(res);
      });
      req.on("error", reject);
      req.end(check);
    });
    // A client that reads nothing holds the upstream back once the buffers between them are full.
    expect(await settled(() => written)).toBeLessThan(total / 2);
    let received = 0;
    answer.on("data", (c: Buffer) => (received += c.length)).resume();
    await once(answer, "end");
    expect(received).toBe(total);
    expect(written).toBe(total);
  });

  it("a client that goes away takes its upstream request with it", async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    const upstream = await upstreamAnswering((_req, res) => {
      res.on("close", upstreamClosed);
      res.writeHead(200, { "content-type": "application/octet-stream" }).write("the first of many chunks");
    });
    // Longer than the test may take: only the client's going away can end the upstream's answer.
    const proxy = await proxyTo(upstream.url, { upstreamTimeout: 600_000 });
    const url = new URL(proxy.url);
    await new Promise<void>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, method: "POST", path: "/v1/balances.check", headers: withKey }, (res) => {
        res.once("data", () => {
          req.destroy();
          resolve();
        });
      });
      req.on("error", reject);
      req.end(check);
    });
    await closed;
  });
});

describe("the spec's x-rules, as the bundle gives them", () => {
  const webdata = new OpenApiValidators(loadBundle("webdata")).walkedOperations();
  const exampleOf = (operationId: string) => webdata.find((op) => op.operationId === operationId)!.responses.find((r) => r.status === "200")!.media[0]!.examples[0]!.value as Record<string, unknown>;
  const started = exampleOf("startCrawl");
  const webKey = { "content-type": "application/json", authorization: "Bearer fc-0123456789abcdef0123456789abcdef" };

  it("a crawl url is judged by the url rule: what the live service accepts passes, what it refuses is a request violation", async () => {
    const upstream = await upstreamAnswering(json(200, started));
    const proxy = await startContractProxy({ service: "webdata", upstream: upstream.url });
    opened.push(proxy);
    for (const url of ["bücher.de", "8.8.8.8"]) {
      const reply = await send(proxy.url, "POST", "/v2/crawl", webKey, JSON.stringify({ url }));
      expect(reply.headers["x-contract-violations"], url).toBe("0");
    }
    const reply = await send(proxy.url, "POST", "/v2/crawl", webKey, JSON.stringify({ url: "0.0.260.0" }));
    expect(reply.headers["x-contract-violations"]).toBe("1");
    expect(proxy.violations).toMatchObject([{ operationId: "startCrawl", direction: "request", errors: [{ in: "body", pointer: "/url", keyword: "x-rules" }] }]);
  });

  it("a monitor whose target URLs hold an internationalised host and a space passes: the response rule is the live one, not RFC 3986", async () => {
    const monitor = structuredClone(exampleOf("getMonitor"));
    const data = monitor.data as { targets: Array<{ type: string; urls?: string[] }>; webhook?: { url: string } | null };
    const scrape = data.targets.find((t) => t.type === "scrape")!;
    scrape.urls = ["https://shop.bücher.de/preise 2025"];
    if (data.webhook) data.webhook.url = "https://hooks.bücher.de/monitor";
    const upstream = await upstreamAnswering(json(200, monitor));
    const proxy = await startContractProxy({ service: "webdata", upstream: upstream.url });
    opened.push(proxy);
    const reply = await send(proxy.url, "GET", "/v2/monitor/2e7c9b14-5a3d-4f6e-8b1a-9c0d2e4f6a8b", webKey);
    expect(reply.status).toBe(200);
    expect(proxy.violations).toEqual([]);
  });
});
