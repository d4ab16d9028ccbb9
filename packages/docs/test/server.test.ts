import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
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

  it("answers 400 for a path that is not valid percent-encoding", async () => {
    expect((await rawGet(docs.url, "/%E0%A4%A")).status).toBe(400);
  });

  it("answers HEAD without a body and refuses other methods with 405", async () => {
    expect(await rawGet(docs.url, "/", "HEAD")).toMatchObject({ status: 200, body: "" });
    expect((await rawGet(docs.url, "/", "POST")).status).toBe(405);
  });
});
