#!/usr/bin/env node
// `npm run registry`: until the packages are published, packs every published package of this
// checkout and serves them as an npm registry on 127.0.0.1, so that a project installs them by name
// (`npm install @api-contracts/webdata-client --registry <URL>`) exactly as it will from the public
// registry: npm resolves each sibling by name, where one tarball alone fails on the first sibling
// it cannot find. Any other name is relayed to the upstream registry (npm's configured one by
// default), or, with --no-upstream, answered 404 for a project that asks this registry for the
// @api-contracts scope only (`--@api-contracts:registry=<URL>`).
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import semver from "semver";
import { listen } from "@api-contracts/contract-core/server";
import { repoRoot, workspacePackages } from "./package-graph.mjs";

/**
 * What a request to the registry may be: a GET or HEAD of a package name or a tarball, whose URL
 * and headers are short. A package document from upstream is relayed as it streams, within
 * upstreamTimeoutMs.
 */
export const REGISTRY_LIMITS = { urlBytes: 2048, headerBytes: 16 * 1024, requestTimeoutMs: 30_000, upstreamTimeoutMs: 30_000, connections: 256 };

/**
 * Packs the packages in `dirs` into `destination` with npm pack, each tarball beside its manifest
 * (`<tarball>.json`, the document's version entry); resolves to npm pack's report of each.
 */
export async function packInto(dirs, destination) {
  const { stdout } = await promisify(execFile)("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", destination, ...dirs], {
    cwd: destination,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const reports = JSON.parse(stdout);
  dirs.forEach((dir, index) => writeFileSync(path.join(destination, `${reports[index].filename}.json`), readFileSync(path.join(dir, "package.json"))));
  return reports;
}

/** The tarballs in `tarballDir` that have a manifest beside them, by package name. */
function readPackages(tarballDir) {
  const byName = new Map();
  for (const file of readdirSync(tarballDir).filter((name) => name.endsWith(".tgz.json"))) {
    const filename = file.slice(0, -".json".length);
    const manifest = JSON.parse(readFileSync(path.join(tarballDir, file), "utf8"));
    const bytes = readFileSync(path.join(tarballDir, filename));
    const dist = { integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`, shasum: createHash("sha1").update(bytes).digest("hex") };
    byName.set(manifest.name, [...(byName.get(manifest.name) ?? []), { filename, manifest, dist }]);
  }
  return byName;
}

/**
 * Serves the tarballs packed into `tarballDir` (see {@link packInto}) as an npm registry: each
 * name's document lists its versions, the newest as `latest`; another name is relayed to
 * `upstream` when given, else 404 as a registry answers a package it does not have.
 */
export async function startRegistry({ tarballDir, upstream, port = 0 }) {
  const packages = readPackages(tarballDir);
  const tarballs = new Map([...packages.values()].flat().map((entry) => [entry.filename, path.join(tarballDir, entry.filename)]));
  const upstreamBase = upstream?.replace(/\/*$/, "/");
  let base;
  const server = createServer({ maxHeaderSize: REGISTRY_LIMITS.headerBytes, requestTimeout: REGISTRY_LIMITS.requestTimeoutMs }, (request, response) => {
    const answer = (status, body) => response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    // A registry is only read: nothing is accepted, and no request body is read.
    if (request.method !== "GET" && request.method !== "HEAD") return answer(405, { error: "Method not allowed" });
    if ((request.url ?? "").length > REGISTRY_LIMITS.urlBytes) return answer(414, { error: "URI too long" });
    let name;
    try {
      name = decodeURIComponent(new URL(request.url ?? "/", "http://registry").pathname).slice(1);
    } catch {
      return answer(400, { error: "Bad request" });
    }
    if (name.startsWith("-/") && tarballs.has(name.slice(2))) {
      return response.writeHead(200, { "content-type": "application/octet-stream" }).end(request.method === "HEAD" ? undefined : readFileSync(tarballs.get(name.slice(2))));
    }
    const versions = packages.get(name);
    if (versions) {
      const newest = versions.reduce((latest, entry) => (semver.gt(entry.manifest.version, latest.manifest.version) ? entry : latest));
      return answer(200, {
        name,
        "dist-tags": { latest: newest.manifest.version },
        versions: Object.fromEntries(versions.map(({ filename, manifest, dist }) => [manifest.version, { ...manifest, dist: { ...dist, tarball: `${base}/-/${filename}` } }])),
      });
    }
    if (!upstreamBase || name.startsWith("-/")) return answer(404, { error: "Not found" });
    relay(request, response, `${upstreamBase}${name.replace("/", "%2f")}`).catch(() => {
      if (!response.headersSent) answer(502, { error: `upstream registry ${upstreamBase} did not answer` });
      else response.destroy();
    });
  });
  server.maxConnections = REGISTRY_LIMITS.connections;
  ({ url: base } = await listen(server, port, "127.0.0.1"));
  return {
    url: base,
    names: [...packages.keys()].sort(),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Relays a package document from the upstream registry as it streams; npm fetches its tarballs from upstream itself. */
async function relay(request, response, url) {
  const accept = request.headers.accept;
  const answer = await fetch(url, { method: request.method, headers: accept ? { accept } : {}, signal: AbortSignal.timeout(REGISTRY_LIMITS.upstreamTimeoutMs) });
  response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
  if (answer.body) await pipeline(Readable.fromWeb(answer.body), response);
  else response.end();
}

const USAGE = `Usage: npm run registry -- [--port N] [--upstream URL | --no-upstream] [--help]

Packs every published package of this checkout and serves them as an npm registry on 127.0.0.1
until Ctrl+C.
  --port N         the port to listen on (default 4873; 0 picks a free one)
  --upstream URL   where every other package comes from (default: npm's configured registry)
  --no-upstream    serve only this checkout's packages, for --@api-contracts:registry=<URL>
  --help           print this and exit`;

async function main() {
  let values;
  try {
    ({ values } = parseArgs({
      options: { port: { type: "string", default: "4873" }, upstream: { type: "string" }, "no-upstream": { type: "boolean" }, help: { type: "boolean", short: "h" } },
    }));
  } catch (error) {
    console.error(`registry: ${error.message}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) return console.log(USAGE);
  if (!/^\d+$/.test(values.port) || Number(values.port) > 65535) {
    console.error(`registry: --port must be a port number (0-65535), got '${values.port}'\n${USAGE}`);
    process.exit(2);
  }
  const upstream = values["no-upstream"] ? undefined : (values.upstream ?? (process.env.npm_config_registry || execFileSync("npm", ["config", "get", "registry"], { encoding: "utf8" }).trim()));

  const published = workspacePackages(repoRoot).filter((pkg) => pkg.published);
  const tarballDir = mkdtempSync(path.join(tmpdir(), "api-contracts-registry-"));
  const remove = () => rmSync(tarballDir, { recursive: true, force: true });
  let registry;
  try {
    await packInto(published.map((pkg) => pkg.dir), tarballDir);
    registry = await startRegistry({ tarballDir, upstream, port: Number(values.port) });
  } catch (error) {
    remove();
    console.error(`registry: ${error?.message ?? error}`);
    process.exit(1);
  }
  console.log(registry.url);
  console.log(`Serving ${registry.names.length} packages (${registry.names.join(", ")}); ${upstream ? `every other package from ${upstream}` : "nothing else"}.`);
  // Without an upstream, a project can only take our scope from here.
  if (upstream) console.log(`Install by name: npm install @api-contracts/webdata-client --registry ${registry.url}`);
  console.log(`${upstream ? "Or only this scope from here" : "Install by name"}: npm install @api-contracts/webdata-client --@api-contracts:registry=${registry.url}`);
  console.log("Press Ctrl+C to stop.");
  const stop = async () => {
    await registry.close();
    remove();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
