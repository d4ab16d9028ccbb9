// The parts of a crawl with a webhook that run without Firecrawl: the static site, the tunnel
// proxy that reaches it and nothing else, the receiver, and the preload that keeps the worker's
// listener on loopback.
import { execFile } from "node:child_process";
import { connect } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { MAX_DELIVERY_BYTES, SITE_PAGES, startStaticSite, startTunnelProxy, startWebhookReceiver, webhookCrawls } from "../src/index.mjs";

/** Sends `text` on a new connection to 127.0.0.1:`port` and resolves with all it reads until the server closes (or 3 s pass). */
function converse(port, ...texts) {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    let answer = "";
    const done = () => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(3_000, done);
    socket.on("data", (chunk) => {
      answer += chunk.toString("utf8");
      // The tunnel is open: send the rest through it.
      if (answer.startsWith("HTTP/1.1 200 Connection Established\r\n\r\n") && texts.length > 0) socket.write(texts.shift());
    });
    socket.once("end", done);
    socket.once("error", reject);
    socket.write(texts.shift());
  });
}

describe("the static site", () => {
  it("serves its pages, each link but one leading to another of them", async () => {
    const site = await startStaticSite();
    try {
      for (const [page, html] of Object.entries(SITE_PAGES)) {
        const response = await fetch(`${site.origin}${page}`);
        expect(response.status, page).toBe(200);
        expect(await response.text()).toBe(html);
      }
      const links = Object.values(SITE_PAGES).flatMap((html) => [...html.matchAll(/href="([^"]+)"/g)].map((match) => match[1]));
      expect(links.filter((link) => !(link in SITE_PAGES))).toEqual(["/docs/missing.html"]);
      expect((await fetch(`${site.origin}/docs/missing.html`)).status).toBe(404);
      expect(site.requests.map((r) => r.path)).toContain("/docs/missing.html");
    } finally {
      await site.close();
    }
  });
});

describe("the tunnel proxy", () => {
  it("tunnels to the site, and refuses another target and a request that is not CONNECT", async () => {
    const site = await startStaticSite();
    const other = await startStaticSite();
    const proxy = await startTunnelProxy([`127.0.0.1:${site.port}`]);
    const port = Number(new URL(proxy.url).port);
    try {
      const through = await converse(port, `CONNECT 127.0.0.1:${site.port} HTTP/1.1\r\nHost: 127.0.0.1:${site.port}\r\n\r\n`, `GET /about.html HTTP/1.1\r\nHost: 127.0.0.1:${site.port}\r\nConnection: close\r\n\r\n`);
      expect(through).toContain("HTTP/1.1 200 OK");
      expect(through).toContain("<title>About</title>");
      expect(await converse(port, `CONNECT 127.0.0.1:${other.port} HTTP/1.1\r\nHost: 127.0.0.1:${other.port}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403 /);
      expect(await converse(port, `GET http://127.0.0.1:${site.port}/about.html HTTP/1.1\r\nHost: 127.0.0.1:${site.port}\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 405 /);
      expect(proxy.tunnels).toEqual([`127.0.0.1:${site.port}`]);
      expect(proxy.refused).toEqual([`CONNECT 127.0.0.1:${other.port}`, `GET http://127.0.0.1:${site.port}/about.html`]);
      expect(other.requests).toEqual([]);
    } finally {
      await Promise.all([proxy.close(), site.close(), other.close()]);
    }
  });
});

describe("the webhook receiver", () => {
  it("keeps a delivery's path, headers (not the host) and exact body, and refuses one over its limit", async () => {
    const receiver = await startWebhookReceiver();
    try {
      const rawBody = '{"type":"crawl.started",  "id":"x"}';
      const response = await fetch(`${receiver.origin}/hooks?a=1`, { method: "POST", headers: { "content-type": "application/json", "x-team": "docs" }, body: rawBody });
      expect(response.status).toBe(200);
      expect(receiver.deliveries).toEqual([expect.objectContaining({ method: "POST", path: "/hooks?a=1", rawBody, headers: expect.objectContaining({ "x-team": "docs" }) })]);
      expect(receiver.deliveries[0].headers).not.toHaveProperty("host");
      const over = await fetch(`${receiver.origin}/hooks`, { method: "POST", body: "x".repeat(MAX_DELIVERY_BYTES + 1) }).then((r) => r.status, (error) => String(error));
      expect([413, "TypeError: fetch failed"]).toContain(over);
      expect(receiver.deliveries).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it("waitFor resolves when the deliveries hold what it waits for, and false at its time limit", async () => {
    const receiver = await startWebhookReceiver();
    try {
      const arrived = receiver.waitFor((deliveries) => deliveries.some((d) => d.path === "/done"), 5_000);
      await fetch(`${receiver.origin}/done`, { method: "POST", body: "{}" });
      expect(await arrived).toBe(true);
      expect(await receiver.waitFor(() => false, 50)).toBe(false);
    } finally {
      await receiver.close();
    }
  });
});

it("each crawl with a webhook posts to a path of its own on the receiver", () => {
  const crawls = webhookCrawls({ site: "http://127.0.0.1:1", receiver: "http://127.0.0.1:2" });
  expect(new Set(crawls.map((crawl) => crawl.receiverPath)).size).toBe(crawls.length);
  for (const crawl of crawls) expect(crawl.body.webhook.url).toBe(`http://127.0.0.1:2${crawl.receiverPath}`);
  expect(crawls.some((crawl) => crawl.body.webhook.events === undefined)).toBe(true);
});

describe("the loopback-only preload", () => {
  const preload = path.join(import.meta.dirname, "..", "src", "loopback-only.cjs");
  const addressOf = async (listen) => {
    const script = `const s = require("node:http").createServer(); ${listen}; s.on("listening", () => { console.log(s.address().address); s.close(); });`;
    const { stdout } = await promisify(execFile)(process.execPath, ["--require", preload, "-e", script], { timeout: 10_000 });
    return stdout.trim();
  };

  it("binds a listen that names a port but no host (as Express's app.listen(port) does) to 127.0.0.1", async () => {
    expect(await addressOf("s.listen(0, () => {})")).toBe("127.0.0.1");
    expect(await addressOf("s.listen(0)")).toBe("127.0.0.1");
    expect(await addressOf("s.listen({ port: 0 })")).toBe("127.0.0.1");
  });

  it("leaves a listen that names its host as it is", async () => {
    expect(await addressOf('s.listen(0, "127.0.0.2")')).toBe("127.0.0.2");
  });
});
