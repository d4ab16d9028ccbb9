// A small static site on 127.0.0.1 for a real crawl to read: four HTML pages that link each other
// (and one that does not exist), no robots.txt and no sitemap. It keeps the paths it was asked
// for, so that a run can say which pages the crawler fetched.
import { createServer } from "node:http";
import { closeServer, listenOnLoopback } from "./processes.mjs";

const page = (title, text, links) =>
  `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${title}</title><meta name="description" content="${text}"></head>
<body>
<h1>${title}</h1>
<p>${text}</p>
<ul>
${links.map((href) => `<li><a href="${href}">${href}</a></li>`).join("\n")}
</ul>
</body>
</html>
`;

/** The site's pages by path; `/docs/missing.html` is linked and answers 404. */
export const SITE_PAGES = {
  "/index.html": page("Conformance site", "The start page of a crawl.", ["/docs/start.html", "/docs/guide.html", "/about.html"]),
  "/docs/start.html": page("Getting started", "How to start.", ["/index.html", "/docs/guide.html"]),
  "/docs/guide.html": page("Guide", "A longer read.", ["/docs/start.html", "/docs/missing.html"]),
  "/about.html": page("About", "Who wrote this site.", ["/index.html"]),
};

/** Most requests the site answers in one run; a crawl of it makes far fewer. */
const MAX_REQUESTS = 500;

/** Starts the site on a free port of 127.0.0.1. Resolves with its origin, the paths asked so far, and close(). */
export async function startStaticSite() {
  const requests = [];
  const server = createServer((req, res) => {
    if (requests.length >= MAX_REQUESTS) {
      res.writeHead(503, { connection: "close" }).end();
      return;
    }
    let url;
    try {
      url = new URL(req.url ?? "/", "http://site");
    } catch {
      // A request target no URL can be made of (`//[`): answered, not thrown out of the handler.
      requests.push({ method: req.method, path: req.url ?? "", userAgent: req.headers["user-agent"] ?? "" });
      res.writeHead(400, { "content-type": "text/plain; charset=utf-8" }).end("bad request target\n");
      return;
    }
    requests.push({ method: req.method, path: url.pathname, userAgent: req.headers["user-agent"] ?? "" });
    const body = req.method === "GET" || req.method === "HEAD" ? SITE_PAGES[url.pathname] : undefined;
    if (body === undefined) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-length": Buffer.byteLength(body) });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  server.requestTimeout = 10_000;
  server.headersTimeout = 10_000;
  const port = await listenOnLoopback(server);
  return { origin: `http://127.0.0.1:${port}`, port, requests, close: () => closeServer(server) };
}
