import { spawn } from "node:child_process";
import { lookup as dnsLookup } from "node:dns";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { limits, startDocsServer, type DocsServer, type RelayLookup } from "../server.mjs";
import { planBrowserTests } from "./find-browser.js";

const KEY = "fc-relay-test-key-0123456789abcdef";

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A stand-in for a real implementation: it sends no CORS headers (as Firecrawl and Autumn send none
 * for the docs' origin), records what reached it, and answers by path.
 */
async function startUpstream(): Promise<{ url: string; port: number; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString() });
      const pathname = (req.url ?? "").split("?")[0];
      if (pathname === "/stall") return; // never answers
      if (pathname === "/reset") return void req.socket.resetAndDestroy();
      if (pathname === "/reset-body") {
        res.writeHead(200, { "content-type": "text/plain", "content-length": "100" });
        res.write("partial", () => setTimeout(() => req.socket.resetAndDestroy(), 50));
        return;
      }
      if (pathname === "/stall-body") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("partial");
        return;
      }
      if (pathname === "/huge") {
        const size = limits.relayResponseBody + 1;
        res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(size) });
        res.end(Buffer.alloc(size, 0x61));
        return;
      }
      if (pathname === "/moved") {
        res.writeHead(302, { location: "https://elsewhere.example/login" });
        res.end();
        return;
      }
      const body = JSON.stringify({ ok: true });
      res.writeHead(201, [
        "Content-Type", "application/json",
        "Content-Length", String(body.length),
        "Set-Cookie", "session=upstream; Path=/",
        "X-Upstream", "kept",
        "Connection", "X-Upstream-Hop",
        "X-Upstream-Hop", "dropped",
      ]);
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, seen, server };
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request as a program sends it (a browser would add and refuse headers of its own). */
function call(base: string, target: string, { method = "GET", headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path: target, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** The headers a same-origin page of the docs sends with a relayed request. */
const fromPage = (docs: { url: string }, target: string, extra: Record<string, string> = {}) => ({
  origin: docs.url,
  "sec-fetch-site": "same-origin",
  "x-relay-target": target,
  authorization: `Bearer ${KEY}`,
  ...extra,
});

/** Every answer of the relay's own: its code and a sentence, and never the caller's key. */
function expectRelayError(answer: Answer, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers["x-relay-error"]).toBe(code);
  expect(answer.headers["x-relay"]).toBeUndefined();
  expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
  const { relayError } = JSON.parse(answer.body) as { relayError: string };
  expect(relayError.length).toBeGreaterThan(10);
  expect(JSON.stringify(answer)).not.toContain(KEY);
  expect(JSON.stringify(answer)).not.toContain("hunter2");
}

// Names under .test are resolved here, so that no test depends on a resolver outside the machine.
// 0.0.0.0 is not a loopback address, yet a connection to it reaches this machine's servers: the
// relay refuses it unless it is allowed, and the test's upstream answers through it when it is.
const testNames: Record<string, string> = { "here.test": "127.0.0.1", "elsewhere.test": "198.51.100.7", "zero.test": "0.0.0.0", "api.example.test": "0.0.0.0" };
const testLookup: RelayLookup = (hostname, options, callback) => {
  if (hostname.endsWith(".invalid")) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), []);
  const address = testNames[hostname];
  if (address === undefined) return dnsLookup(hostname, options, callback);
  callback(null, [{ address, family: 4 }]);
};

describe("docs server relay", () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let docs: DocsServer;
  let allowing: DocsServer;
  beforeAll(async () => {
    upstream = await startUpstream();
    docs = await startDocsServer({ port: 0, relayTimeout: 1_500, lookup: testLookup });
    allowing = await startDocsServer({ port: 0, lookup: testLookup, allowRelayHosts: ["api.example.test", "0.0.0.0"] });
  });
  afterAll(async () => {
    await Promise.all([docs.close(), allowing.close()]);
    upstream.server.closeAllConnections();
    upstream.server.close();
  });

  it("forwards the method, path, query, end-to-end headers and body, and answers with the target's status, headers and body", async () => {
    upstream.seen.length = 0;
    const answer = await call(docs.url, "/_relay/v2/crawl?limit=1&q=a%20b", {
      method: "POST",
      headers: {
        ...fromPage(docs, `${upstream.url}/base/`),
        "content-type": "application/json",
        prefer: "code=201",
        cookie: "docs=session",
        referer: `${docs.url}/webdata.html`,
        "x-relay-note": "for the relay only",
        connection: "x-hop",
        "x-hop": "for this connection only",
      },
      body: '{"url":"https://example.com"}',
    });
    expect(upstream.seen).toHaveLength(1);
    const seen = upstream.seen[0]!;
    expect(seen).toMatchObject({ method: "POST", url: "/base/v2/crawl?limit=1&q=a%20b", body: '{"url":"https://example.com"}' });
    expect(seen.headers).toMatchObject({ host: `127.0.0.1:${upstream.port}`, authorization: `Bearer ${KEY}`, "content-type": "application/json", prefer: "code=201", "content-length": "29" });
    for (const name of ["cookie", "origin", "referer", "sec-fetch-site", "x-relay-target", "x-relay-note", "x-hop"]) expect(seen.headers[name], name).toBeUndefined();

    expect(answer.status).toBe(201);
    expect(answer.body).toBe('{"ok":true}');
    expect(answer.headers).toMatchObject({ "x-relay": "1", "x-upstream": "kept", "content-type": "application/json", "content-length": "11" });
    expect(answer.headers["set-cookie"]).toBeUndefined();
    expect(answer.headers["x-upstream-hop"]).toBeUndefined();
    expect(answer.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("forwards to a base URL without a path, and to localhost", async () => {
    upstream.seen.length = 0;
    for (const base of [upstream.url, `http://localhost:${upstream.port}`, `http://here.test:${upstream.port}`]) {
      expect((await call(docs.url, "/_relay/v2/team/token-usage", { headers: fromPage(docs, base) })).status, base).toBe(201);
    }
    expect(upstream.seen.map((seen) => seen.url)).toEqual(Array(3).fill("/v2/team/token-usage"));
  });

  it("answers a HEAD with the target's Content-Length and no body", async () => {
    const answer = await call(docs.url, "/_relay/v2/crawl", { method: "HEAD", headers: fromPage(docs, upstream.url) });
    expect(answer).toMatchObject({ status: 201, body: "" });
    expect(answer.headers).toMatchObject({ "x-relay": "1", "content-length": "11" });
  });

  it("does not follow a redirect: the status comes back with the Location renamed, so that the browser does not follow it either", async () => {
    const answer = await call(docs.url, "/_relay/moved", { headers: fromPage(docs, upstream.url) });
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBeUndefined();
    expect(answer.headers["x-relay-location"]).toBe("https://elsewhere.example/login");
  });

  it.each([
    ["an address on another host", "http://198.51.100.7:80"],
    ["an IPv4-mapped address on another host", "http://[::ffff:198.51.100.7]:80"],
    ["a name that resolves to another host", "http://elsewhere.test"],
    ["0.0.0.0, which reaches this machine's servers without being loopback", "http://0.0.0.0:PORT"],
    ["a name that resolves to 0.0.0.0", "http://zero.test:PORT"],
  ])("refuses %s with 403 forbidden-host, before reaching it", async (_name, target) => {
    upstream.seen.length = 0;
    expectRelayError(await call(docs.url, "/_relay/v2/crawl", { headers: fromPage(docs, target.replace("PORT", String(upstream.port))) }), 403, "forbidden-host");
    expect(upstream.seen).toHaveLength(0);
  });

  it("sends to the hosts given in allowRelayHosts, and still to no other", async () => {
    for (const target of [`http://api.example.test:${upstream.port}`, `http://0.0.0.0:${upstream.port}`]) {
      expect((await call(allowing.url, "/_relay/v2/crawl", { headers: fromPage(allowing, target) })).status, target).toBe(201);
    }
    expectRelayError(await call(allowing.url, "/_relay/v2/crawl", { headers: fromPage(allowing, `http://zero.test:${upstream.port}`) }), 403, "forbidden-host");
  });

  it.each([
    ["a page on another origin", { origin: "http://evil.example" }],
    ["another site, by its fetch metadata", { "sec-fetch-site": "cross-site" }],
    ["a sibling site, by its fetch metadata", { "sec-fetch-site": "same-site" }],
    ["a name of another site pointed at this machine (DNS rebinding)", { host: "rebound.example:4000", origin: "http://rebound.example:4000" }],
  ])("refuses %s with 403 forbidden-origin, before reaching the target", async (_name, headers) => {
    upstream.seen.length = 0;
    const answer = await call(docs.url, "/_relay/v2/crawl", { method: "POST", headers: { ...fromPage(docs, upstream.url), ...headers }, body: "{}" });
    expectRelayError(answer, 403, "forbidden-origin");
    expect(upstream.seen).toHaveLength(0);
  });

  it.each([
    ["no X-Relay-Target", undefined],
    ["a target that is not a URL", "127.0.0.1:4010"],
    ["a target that is not http(s)", "file:///etc/passwd"],
    ["a target with credentials", "http://admin:hunter2@127.0.0.1:4010"],
    ["a target with a query", "http://127.0.0.1:4010/?key=x"],
  ])("refuses %s with 400 bad-target, without echoing it", async (_name, target) => {
    const headers = fromPage(docs, target ?? "");
    if (target === undefined) delete (headers as Partial<typeof headers>)["x-relay-target"];
    expectRelayError(await call(docs.url, "/_relay/v2/crawl", { headers }), 400, "bad-target");
  });

  it("refuses a body over 1 MiB with 413 too-large, declared or chunked, and the client reads the refusal", async () => {
    upstream.seen.length = 0;
    const body = Buffer.alloc(limits.relayRequestBody + 1, 0x20);
    expectRelayError(await call(docs.url, "/_relay/v2/crawl", { method: "POST", headers: fromPage(docs, upstream.url), body }), 413, "too-large");
    const chunked = await new Promise<Answer>((resolve, reject) => {
      const { hostname, port } = new URL(docs.url);
      const req = request({ hostname, port, path: "/_relay/v2/crawl", method: "POST", headers: fromPage(docs, upstream.url), agent: false }, (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on("error", reject);
      for (let sent = 0; sent <= limits.relayRequestBody; sent += 64 * 1024) req.write(Buffer.alloc(64 * 1024, 0x20));
      req.end();
    });
    expect(chunked.headers["transfer-encoding"]).toBeUndefined();
    expectRelayError(chunked, 413, "too-large");
    expect(upstream.seen).toHaveLength(0);
  });

  it("answers a 50 MB upload with 413 at once, and cuts the connection once it has dropped 8 MiB of it", async () => {
    const { hostname, port } = new URL(docs.url);
    const socket = connect(Number(port), hostname);
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
    socket.on("error", () => {}); // the cut shows as EPIPE or ECONNRESET on this side
    await new Promise((resolve) => socket.once("connect", resolve));
    const headers = Object.entries(fromPage(docs, upstream.url)).map(([name, value]) => `${name}: ${value}\r\n`).join("");
    socket.write(`POST /_relay/v2/crawl HTTP/1.1\r\nhost: ${new URL(docs.url).host}\r\n${headers}content-length: 50000000\r\n\r\n`);
    const megabyte = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    while (!socket.destroyed && sent < 40) {
      if (!socket.write(megabyte)) await new Promise((resolve) => setTimeout(resolve, 5));
      sent++;
    }
    await new Promise((resolve) => (socket.destroyed ? resolve(undefined) : socket.once("close", resolve)));
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received).toContain("x-relay-error: too-large");
    expect(sent).toBeLessThan(40);
  });

  it("refuses an answer over 8 MiB with 502 too-large", async () => {
    expectRelayError(await call(docs.url, "/_relay/huge", { headers: fromPage(docs, upstream.url) }), 502, "too-large");
  });

  it.each(["/stall", "/stall-body"])("answers 504 timeout when the target is too slow (%s)", async (pathname) => {
    const started = Date.now();
    expectRelayError(await call(docs.url, `/_relay${pathname}`, { headers: fromPage(docs, upstream.url) }), 504, "timeout");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it.each([
    ["/reset", "The target closed the connection without answering (ECONNRESET)."],
    ["/reset-body", "The target closed the connection in the middle of its answer."],
  ])("answers 502 closed, not unreachable, when the target takes the connection and resets it (%s)", async (pathname, sentence) => {
    const answer = await call(docs.url, `/_relay${pathname}`, { headers: fromPage(docs, upstream.url) });
    expectRelayError(answer, 502, "closed");
    expect(JSON.parse(answer.body)).toEqual({ relayError: sentence });
  });

  it("answers 502 unreachable when nothing listens at the target", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    expectRelayError(await call(docs.url, "/_relay/v2/crawl", { headers: fromPage(docs, `http://127.0.0.1:${port}`) }), 502, "unreachable");
  });

  it("answers 502 unreachable when the target's name does not resolve", async () => {
    const answer = await call(docs.url, "/_relay/v2/crawl", { headers: fromPage(docs, "http://nowhere.invalid") });
    expectRelayError(answer, 502, "unreachable");
    expect(answer.body).toContain("ENOTFOUND");
  });

  it("answers 503 busy beyond its concurrent relays, and relays again once one ends", async () => {
    const narrow = await startDocsServer({ port: 0, relayConcurrency: 1, relayTimeout: 600 });
    try {
      const stalled = call(narrow.url, "/_relay/stall", { headers: fromPage(narrow, upstream.url) });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const refused = await call(narrow.url, "/_relay/v2/crawl", { headers: fromPage(narrow, upstream.url) });
      expectRelayError(refused, 503, "busy");
      expect(refused.headers["retry-after"]).toBe("1");
      expectRelayError(await stalled, 504, "timeout");
      expect((await call(narrow.url, "/_relay/v2/crawl", { headers: fromPage(narrow, upstream.url) })).status).toBe(201);
    } finally {
      await narrow.close();
    }
  });

  it("node server.mjs --allow-relay-host <host> allows that host; DOCS_PORT sets its port, as at the root", async () => {
    const child = spawn(process.execPath, [path.join(import.meta.dirname, "..", "server.mjs"), "--allow-relay-host", "0.0.0.0"], { env: { ...process.env, DOCS_PORT: "0" }, stdio: ["ignore", "pipe", "inherit"] });
    try {
      const [line] = (await once(child.stdout, "data")) as [Buffer];
      const served = { url: /docs: (\S+)/.exec(line.toString())![1]! };
      expect(new URL(served.url).port).not.toBe("4000");
      expect((await call(served.url, "/_relay/v2/crawl", { headers: fromPage(served, `http://0.0.0.0:${upstream.port}`) })).status).toBe(201);
      expectRelayError(await call(served.url, "/_relay/v2/crawl", { headers: fromPage(served, "http://198.51.100.7") }), 403, "forbidden-host");
    } finally {
      child.kill("SIGTERM");
    }
  });

  it("keeps refusing other methods on the pages' paths", async () => {
    expect((await call(docs.url, "/relay/v2/crawl", { method: "POST", headers: fromPage(docs, upstream.url), body: "{}" })).status).toBe(405);
    expect((await call(docs.url, "/_relayed", { method: "POST", headers: fromPage(docs, upstream.url), body: "{}" })).status).toBe(405);
  });
});

describe("docs server console configuration and moved ports", () => {
  let dir = "";
  let plain: DocsServer;
  let moved: DocsServer;
  const page = '<div>http://127.0.0.1:4010</div><script>{"servers":[{"url":"http://127.0.0.1:4010"},{"url":"http://127.0.0.1:40100/x"}]}</script>';
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "docs-console-"));
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "webdata.openapi.json"), JSON.stringify({ servers: [{ url: "https://api.firecrawl.dev" }, { url: "http://127.0.0.1:4010" }] }));
    writeFileSync(path.join(dir, "webdata.html"), page);
    writeFileSync(path.join(dir, "index.html"), "<pre>http://127.0.0.1:4010 http://127.0.0.1:4011</pre>");
    writeFileSync(path.join(dir, "shot.png"), "http://127.0.0.1:4010");
    plain = await startDocsServer({ port: 0, root: dir });
    moved = await startDocsServer({ port: 0, root: dir, targets: { webdata: { mock: "http://127.0.0.1:5010" }, entitlements: { mock: "http://127.0.0.1:5011" } } });
  });
  afterAll(async () => {
    await Promise.all([plain.close(), moved.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("/_console/config.json names the relay, and the targets when it was given them", async () => {
    const bare = await call(plain.url, "/_console/config.json");
    expect(bare.status).toBe(200);
    expect(bare.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(JSON.parse(bare.body)).toEqual({ relay: "/_relay" });
    expect(JSON.parse((await call(moved.url, "/_console/config.json")).body)).toEqual({
      relay: "/_relay",
      targets: { webdata: { mock: "http://127.0.0.1:5010" }, entitlements: { mock: "http://127.0.0.1:5011" } },
    });
  });

  it("serves the pages naming the servers that run, where the build named the registry's ports", async () => {
    const served = await call(moved.url, "/webdata.html");
    expect(served.body).toBe(page.replace(/http:\/\/127\.0\.0\.1:4010(?!0)/g, "http://127.0.0.1:5010"));
    expect(served.body).toContain("http://127.0.0.1:40100/x");
    expect(Number(served.headers["content-length"])).toBe(Buffer.byteLength(served.body));
    const head = await call(moved.url, "/webdata.html", { method: "HEAD" });
    expect(head.headers["content-length"]).toBe(served.headers["content-length"]);
    expect(head.body).toBe("");
    // Only the API whose description names the server moves: no entitlements description was built here.
    expect((await call(moved.url, "/")).body).toBe("<pre>http://127.0.0.1:5010 http://127.0.0.1:4011</pre>");
    expect(JSON.parse((await call(moved.url, "/webdata.openapi.json")).body).servers[1].url).toBe("http://127.0.0.1:5010");
    expect((await call(moved.url, "/shot.png")).body).toBe("http://127.0.0.1:4010");
    expect((await call(plain.url, "/webdata.html")).body).toBe(page);
  });
});

const plan = planBrowserTests({ env: process.env, home: homedir() });

describe.skipIf("skip" in plan)("docs server relay, used by pages in headless Chromium", () => {
  let dir = "";
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let docs: DocsServer;
  let otherSite: DocsServer;
  let browser: Browser;
  beforeAll(async () => {
    if ("fail" in plan) throw new Error(plan.fail);
    dir = mkdtempSync(path.join(tmpdir(), "docs-relay-browser-"));
    writeFileSync(path.join(dir, "index.html"), "<!doctype html><title>page</title>");
    upstream = await startUpstream();
    docs = await startDocsServer({ port: 0, root: dir });
    // Another port is another origin: a page there stands for any other site the reader has open.
    otherSite = await startDocsServer({ port: 0, root: dir });
    browser = await chromium.launch({ executablePath: "run" in plan ? plan.run : "", args: ["--headless", "--no-sandbox", "--disable-gpu"] });
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([docs?.close(), otherSite?.close()]);
    upstream?.server.closeAllConnections();
    upstream?.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `fetch` in a page of `site` and gives its outcome: the status and headers read, or the error's name. */
  async function fetchFrom(site: DocsServer, url: string, init: { method: string; headers?: Record<string, string>; body?: string; mode?: "no-cors" }) {
    const page = await browser.newPage();
    try {
      await page.goto(`${site.url}/`);
      return await page.evaluate(
        async ([url, init]) =>
          fetch(url, init).then(
            async (res) => ({ status: res.status, relay: res.headers.get("x-relay"), body: await res.text() }),
            (error: Error) => ({ error: error.name }),
          ),
        [url, init] as const,
      );
    } finally {
      await page.close();
    }
  }

  const crawl = { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` }, body: '{"url":"https://example.com"}' };

  it("a page cannot reach a target without CORS headers itself, and reaches it through its own docs server's relay", async () => {
    expect(await fetchFrom(docs, `${upstream.url}/v2/crawl`, crawl)).toEqual({ error: "TypeError" });
    upstream.seen.length = 0;
    const relayed = await fetchFrom(docs, "/_relay/v2/crawl", { ...crawl, headers: { ...crawl.headers, "x-relay-target": upstream.url } });
    expect(relayed).toEqual({ status: 201, relay: "1", body: '{"ok":true}' });
    expect(upstream.seen).toHaveLength(1);
    expect(upstream.seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(upstream.seen[0]!.headers.origin).toBeUndefined();
  });

  it("a page on another origin cannot drive the relay, with or without a preflight", async () => {
    upstream.seen.length = 0;
    const relay = `${docs.url}/_relay/v2/crawl`;
    expect(await fetchFrom(otherSite, relay, { ...crawl, headers: { ...crawl.headers, "x-relay-target": upstream.url } })).toEqual({ error: "TypeError" });
    // A request the browser sends without asking first: it cannot carry X-Relay-Target, and is refused for its origin anyway.
    expect(await fetchFrom(otherSite, relay, { method: "POST", body: crawl.body, mode: "no-cors" })).toEqual({ status: 0, relay: null, body: "" });
    expect(upstream.seen).toHaveLength(0);
  });
});
