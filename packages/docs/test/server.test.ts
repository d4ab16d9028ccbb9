import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDocsServer, type DocsServer } from "../server.mjs";

// Sends the path exactly as written: fetch() would normalise away the "../" segments under test.
function rawGet(base: string, rawPath: string, method = "GET") {
  const { hostname, port } = new URL(base);
  return new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
    const req = request({ hostname, port, path: rawPath, method }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"], body }));
    });
    req.on("error", reject);
    req.end();
  });
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Whether the server closed the connection itself. */
  closedByServer: boolean;
}

/**
 * Writes bytes exactly as given (a browser or `http.request` would refuse or repair most of the
 * requests under test) and reads until the server closes the connection. `trickle` sends the rest
 * one byte at a time until the server answers.
 */
function rawExchange(base: string, bytes: string, trickle = ""): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let dripping: NodeJS.Timeout | undefined;
    let closedByServer = false;
    socket.on("connect", () => {
      socket.write(bytes);
      let next = 0;
      if (trickle) dripping = setInterval(() => socket.write(trickle[next++ % trickle.length]!), 20);
    });
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("end", () => {
      closedByServer = true;
      socket.end();
    });
    socket.on("error", reject);
    socket.on("close", () => {
      clearInterval(dripping);
      const text = Buffer.concat(chunks).toString("latin1");
      const split = text.indexOf("\r\n\r\n");
      const [statusLine = "", ...lines] = text.slice(0, split < 0 ? text.length : split).split("\r\n");
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(" ")[1] ?? 0), headers, body: split < 0 ? "" : text.slice(split + 4), closedByServer });
    });
  });
}

/** A small plain-text answer: what every refusal of the docs server looks like. */
function expectPlainRefusal(answer: RawAnswer, status: number) {
  expect(answer.status).toBe(status);
  expect(answer.headers["content-type"]).toBe("text/plain; charset=utf-8");
  expect(answer.body.length).toBeGreaterThan(0);
  expect(answer.body.length).toBeLessThan(200);
  expect(Number(answer.headers["content-length"])).toBe(answer.body.length);
}

const request11 = (target: string, headers = "") => `GET ${target} HTTP/1.1\r\nHost: docs\r\n${headers}Connection: close\r\n\r\n`;

describe("docs server", () => {
  let dir = "";
  let docs: DocsServer;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "docs-server-"));
    const root = path.join(dir, "site");
    mkdirSync(path.join(root, "nested"), { recursive: true });
    writeFileSync(path.join(root, "index.html"), "<h1>landing</h1>");
    writeFileSync(path.join(root, "api.openapi.json"), "{}");
    writeFileSync(path.join(root, "api.openapi.yaml"), "openapi: 3.1.0\n");
    writeFileSync(path.join(root, "shot.png"), "png");
    writeFileSync(path.join(root, "nested", "index.html"), "<p>nested</p>");
    writeFileSync(path.join(dir, "secret.txt"), "outside the root");
    docs = await startDocsServer({ port: 0, root });
  });
  afterAll(async () => {
    await docs.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("listens on 127.0.0.1 and reports the port it got", () => {
    expect(docs.port).toBeGreaterThan(0);
    expect(docs.url).toBe(`http://127.0.0.1:${docs.port}`);
  });

  it("serves index.html for / and for a folder", async () => {
    expect(await rawGet(docs.url, "/")).toMatchObject({ status: 200, type: "text/html; charset=utf-8", body: "<h1>landing</h1>" });
    expect(await rawGet(docs.url, "/nested")).toMatchObject({ status: 200, body: "<p>nested</p>" });
    expect(await rawGet(docs.url, "/nested/")).toMatchObject({ status: 200, body: "<p>nested</p>" });
  });

  it("names the content type of the bundles and screenshots by their extension", async () => {
    expect((await rawGet(docs.url, "/api.openapi.json")).type).toBe("application/json; charset=utf-8");
    expect((await rawGet(docs.url, "/api.openapi.yaml")).type).toBe("application/yaml; charset=utf-8");
    expect((await rawGet(docs.url, "/shot.png?cache=1")).type).toBe("image/png");
  });

  it("answers 404 for a missing file", async () => {
    expect(await rawGet(docs.url, "/missing.html")).toMatchObject({ status: 404, body: "Not Found\n" });
  });

  it.each(["/../secret.txt", "/%2e%2e/secret.txt", "/nested/..%2f..%2fsecret.txt", "/..%5csecret.txt", "/%00index.html"])(
    "never serves a file outside its root (%s)",
    async (rawPath) => {
      const answer = await rawGet(docs.url, rawPath);
      expect(answer.status).toBe(404);
      expect(answer.body).not.toContain("outside the root");
    },
  );

  it.each(["/%E0%A4%A", "/%ZZ", "/nested/%"])("answers 400 for a path that is not valid percent-encoding (%s)", async (rawPath) => {
    expectPlainRefusal(await rawExchange(docs.url, request11(rawPath)), 400);
  });

  it("answers HEAD without a body and refuses other methods with 405", async () => {
    expect(await rawGet(docs.url, "/", "HEAD")).toMatchObject({ status: 200, body: "" });
    expect((await rawGet(docs.url, "/", "POST")).status).toBe(405);
  });
});

describe("docs server under hostile input", () => {
  let dir = "";
  let docs: DocsServer;
  let patient: DocsServer;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "docs-hostile-"));
    const root = path.join(dir, "site");
    mkdirSync(root);
    writeFileSync(path.join(root, "index.html"), "<h1>landing</h1>");
    writeFileSync(path.join(root, "api.openapi.json"), "{}");
    writeFileSync(path.join(dir, "secret.txt"), "outside the root");
    mkdirSync(path.join(dir, "private"));
    writeFileSync(path.join(dir, "private", "index.html"), "outside the root");
    symlinkSync(path.join(dir, "secret.txt"), path.join(root, "leak.txt"));
    symlinkSync(path.join(dir, "private"), path.join(root, "leaked-folder"));
    symlinkSync(path.join(root, "api.openapi.json"), path.join(root, "latest.openapi.json"));
    // Short timeouts, so that a stalled peer is answered within the test.
    docs = await startDocsServer({ port: 0, root, headersTimeout: 300, requestTimeout: 600 });
    patient = await startDocsServer({ port: 0, root });
  });
  afterAll(async () => {
    await docs.close();
    await patient.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(["/leak.txt", "/leaked-folder/", "/leaked-folder/index.html", "/leaked-folder"])(
    "never follows a symlink out of its root (%s)",
    async (target) => {
      const answer = await rawExchange(docs.url, request11(target));
      expectPlainRefusal(answer, 404);
      expect(answer.body).not.toContain("outside the root");
    },
  );

  it("serves a symlink that stays inside its root", async () => {
    expect(await rawExchange(docs.url, request11("/latest.openapi.json"))).toMatchObject({ status: 200, body: "{}" });
  });

  it.each([
    ["a NUL byte in the path", request11("/\0index.html")],
    ["a request line that is not HTTP", "GARBAGE\r\n\r\n"],
    ["conflicting Content-Length and Transfer-Encoding", "GET / HTTP/1.1\r\nHost: docs\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"],
  ])("answers 400 in plain text to %s", async (_name, bytes) => {
    const answer = await rawExchange(docs.url, bytes);
    expectPlainRefusal(answer, 400);
    expect(answer.closedByServer).toBe(true);
  });

  it("answers 400 in plain text to an HTTP/1.1 request without Host (the docs do not need one)", async () => {
    expectPlainRefusal(await rawExchange(docs.url, "GET /%ZZ HTTP/1.1\r\nConnection: close\r\n\r\n"), 400);
  });

  it.each([2_100, 20_000])("answers 414 to a URL of %i characters", async (length) => {
    const answer = await rawExchange(docs.url, request11(`/${"a".repeat(length)}`));
    expectPlainRefusal(answer, 414);
    expect(answer.closedByServer).toBe(true);
  });

  it("answers 431 to headers over 16 KB", async () => {
    const answer = await rawExchange(docs.url, request11("/", `X-Padding: ${"a".repeat(20_000)}\r\n`));
    expectPlainRefusal(answer, 431);
  });

  it.each(["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND"])("refuses %s with 405 naming GET and HEAD", async (method) => {
    const answer = await rawExchange(docs.url, `${method} / HTTP/1.1\r\nHost: docs\r\nConnection: close\r\n\r\n`);
    expectPlainRefusal(answer, 405);
    expect(answer.headers.allow).toBe("GET, HEAD");
  });

  it("refuses CONNECT with 405 instead of dropping the connection", async () => {
    const answer = await rawExchange(docs.url, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
    expectPlainRefusal(answer, 405);
    expect(answer.headers.allow).toBe("GET, HEAD");
  });

  it("answers 501 to a method HTTP does not know", async () => {
    expectPlainRefusal(await rawExchange(docs.url, "FROBNICATE / HTTP/1.1\r\nHost: docs\r\n\r\n"), 501);
  });

  it("refuses a 50 MB upload from its header, without waiting for the body, and closes the connection", async () => {
    const answer = await rawExchange(patient.url, "POST / HTTP/1.1\r\nHost: docs\r\nContent-Length: 50000000\r\n\r\n");
    expectPlainRefusal(answer, 405);
    expect(answer.closedByServer).toBe(true);
  }, 15_000);

  it.each([
    ["a declared length", "Content-Length: 50000000\r\n"],
    ["a chunked body", "Transfer-Encoding: chunked\r\n"],
  ])("answers 413 to a GET with %s, without waiting for it, and closes the connection", async (_name, header) => {
    const answer = await rawExchange(patient.url, `GET / HTTP/1.1\r\nHost: docs\r\n${header}\r\n`);
    expectPlainRefusal(answer, 413);
    expect(answer.closedByServer).toBe(true);
  }, 15_000);

  it("answers 408 to headers that never end", async () => {
    const answer = await rawExchange(docs.url, "GET / HTTP/1.1\r\nHost: docs\r\n", "X-Slow: a\r\n");
    expectPlainRefusal(answer, 408);
    expect(answer.closedByServer).toBe(true);
  }, 15_000);

  it("closes a connection that never sends a request", async () => {
    const answer = await rawExchange(docs.url, "");
    expect(answer.closedByServer).toBe(true);
  }, 15_000);

  it("keeps serving after all of the above", async () => {
    expect(await rawExchange(docs.url, request11("/"))).toMatchObject({ status: 200, body: "<h1>landing</h1>" });
    expect(await rawExchange(patient.url, request11("/"))).toMatchObject({ status: 200, body: "<h1>landing</h1>" });
  });
});
