// Every publishable package as a user gets it: packed, checked the way the ecosystem checks
// packages (publint, Are the Types Wrong), installed with `npm install ./<tarball>...` into a fresh
// project outside this repository next to today's TypeScript, type-checked there with TypeScript 7
// and 5.9, run as an ES module and as CommonJS (under node, and under Bun where there is one), and
// its commands run from the project; then installed by name through `npm run registry`.
import { execFile } from "node:child_process";
import { createHmac } from "node:crypto";
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { filesReachedFromExports, installPacked, loadBundle, loadForWebRuntime, npmEnv, runtimeClosure, specExample, startCommand, type Consumer, type PackReport } from "@api-contracts/dev-tools/testing";
import { repoRoot, workspacePackages } from "../package-graph.mjs";
import { packInto, startRegistry } from "../registry.mjs";

const run = promisify(execFile);

// Bun: BUN_PATH, else a bun on the PATH. Without one the Bun runs are skipped with a line saying how
// to get it; CI=true requires them (.ci/run fetches Bun from the npm registry).
const HOW_TO_GET_BUN = "put bun on the PATH or set BUN_PATH (the npm registry's @oven/bun-linux-x64-baseline holds one in bin/bun)";
const isExecutable = (file: string) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};
function planBunRuns(env: NodeJS.ProcessEnv): { run: string } | { skip: string } | { fail: string } {
  const named = env.BUN_PATH;
  const found = named ? (isExecutable(named) ? named : undefined) : (env.PATH ?? "").split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, "bun")).find(isExecutable);
  if (found) return { run: found };
  const why = named ? `BUN_PATH (${named}) is not an executable file` : "no bun on the PATH and no BUN_PATH";
  if (env.CI === "true") return { fail: `${why}; CI=true requires the Bun runs: ${HOW_TO_GET_BUN}` };
  return { skip: `Bun runs of the installed packages skipped: ${why}; to run them, ${HOW_TO_GET_BUN}` };
}
const bun = planBunRuns(process.env);
if ("skip" in bun) console.warn(bun.skip);

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  exports?: Record<string, unknown>;
}
const manifestOf = (dir: string) => JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as Manifest;
const publicPackages = workspacePackages(repoRoot)
  .map((pkg: { dir: string }) => ({ dir: pkg.dir, manifest: manifestOf(pkg.dir) }))
  .filter(({ manifest }: { manifest: Manifest }) => manifest.private !== true) as Array<{ dir: string; manifest: Manifest }>;
const moduleDir = (name: string) => path.join(repoRoot, "node_modules", name);

// The project's own TypeScript is what `npm i -D typescript` gives today (7.x, from the lockfile's
// `typescript-7` alias); 5.9 sits beside it under an alias, as a project that tries both would have it.
const TYPESCRIPT = { newest: moduleDir("typescript-7"), previous: moduleDir("typescript") };

// The mock's README asks its users for the root's lodash override (Prism's postman-collection pins a
// lodash with a known advisory); the project here does as it says.
const { overrides } = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { overrides: Record<string, string> };

let consumer: Consumer;
let tarballOf: (name: string) => PackReport;
beforeAll(async () => {
  consumer = await installPacked([...publicPackages.map(({ dir }) => dir), TYPESCRIPT.newest, moduleDir("@types/node"), moduleDir("standardwebhooks")], {
    registry: { pack: packInto, serve: (tarballDir) => startRegistry({ tarballDir }) },
    aliases: { "typescript-5.9": TYPESCRIPT.previous },
    overrides,
  });
  tarballOf = (name) => consumer.packed.find((report) => report.name === name && report.version === manifestOf(publicPackages.find((pkg) => pkg.manifest.name === name)!.dir).version)!;
}, 300_000);
afterAll(() => consumer?.remove(), 60_000);

const tarballPath = (name: string) => path.join(consumer.dir, ".tarballs", tarballOf(name).filename);

// Each tool run is a process of its own; two at a time keep both cores busy.
describe.concurrent("every publishable tarball passes the ecosystem's package checks", () => {
  it.each(publicPackages.map(({ manifest }) => manifest.name))("%s: publint (suggestions too) and Are the Types Wrong, every entry point in every resolution mode", async (name) => {
    const publint = await run("npx", ["publint", tarballPath(name), "--level", "suggestion", "--strict"], { cwd: repoRoot, encoding: "utf8" });
    expect(publint.stdout).toContain("All good!");
    // cjs-resolves-to-esm models Node before 20.19, which could not require() an ES module; every
    // Node in `engines` can, and the CommonJS program below proves it (see the root README).
    // attw exits 1 on a problem; its report (the problems named) is what the assertions below show.
    const attw = await run("npx", ["attw", tarballPath(name), "--format", "json", "--ignore-rules", "cjs-resolves-to-esm"], { cwd: repoRoot, encoding: "utf8" }).then(
      (done) => ({ ...done, code: 0 }),
      (error: { stdout: string; code: number }) => ({ stdout: error.stdout, code: error.code }),
    );
    const analysis = JSON.parse(attw.stdout) as { analysis: { types: unknown; problems?: Array<{ kind: string; entrypoint?: string; resolutionKind?: string }>; entrypoints?: Record<string, unknown> } };
    if (analysis.analysis.types === false) {
      // Only a package with no JavaScript entry (the spec's JSON and YAML) may have no types.
      expect(Object.values(manifestOf(publicPackages.find((pkg) => pkg.manifest.name === name)!.dir).exports ?? {}).flat().join(" ")).not.toMatch(/\.m?js\b/);
      return;
    }
    const ignored = new Set(["CJSResolvesToESM"]);
    expect(analysis.analysis.problems?.filter((problem) => !ignored.has(problem.kind))).toEqual([]);
    const declared = Object.keys(manifestOf(publicPackages.find((pkg) => pkg.manifest.name === name)!.dir).exports ?? {}).filter((entry) => !entry.includes("*"));
    expect(Object.keys(analysis.analysis.entrypoints ?? {}).sort()).toEqual(declared.sort());
    expect(attw.code, "attw's exit code").toBe(0);
  }, 60_000);
});

describe("the tarballs hold what users need and nothing else", () => {
  it.each(["@api-contracts/client-runtime", "@api-contracts/entitlements-client", "@api-contracts/webdata-client"])("%s holds exactly the files its exports reach, none from another package's folder", (name) => {
    const dir = publicPackages.find((pkg) => pkg.manifest.name === name)!.dir;
    expect(tarballOf(name).files.map((file) => file.path).sort()).toEqual(filesReachedFromExports(dir));
  });

  it("the client runtime holds no tooling: no generator, bench driver or test support", () => {
    const files = tarballOf("@api-contracts/client-runtime").files.map((file) => file.path);
    expect(files).toEqual(expect.arrayContaining(["dist/index.js", "dist/index.d.ts", "dist/request.js"]));
    expect(files.filter((file) => /generate|bench|testing|^bin\//.test(file))).toEqual([]);
  });

  it.each(publicPackages.map(({ dir, manifest }) => [manifest.name, dir]))("%s: the README's Install section names the tarballs it needs, then the one npm install line once published", (name, dir) => {
    const readme = readFileSync(path.join(dir, "README.md"), "utf8");
    const install = /^## Install\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? "";
    const needed = runtimeClosure(dir)
      .map(manifestOf)
      .filter((manifest) => publicPackages.some((pkg) => pkg.manifest.name === manifest.name))
      .map((manifest) => tarballOf(manifest.name).filename);
    const line = /^npm install (\.\/\S+(?: \.\/\S+)*)$/m.exec(install)?.[1]?.split(" ").map((file) => file.replace(/^\.\//, ""));
    expect(line?.sort(), "npm install ./<tarball>... in the Install section").toEqual(needed.sort());
    expect(install).toContain(`npm install ${name}`);
  });

  it("the root README lists every tarball with its size, within a tenth of what npm pack reports", () => {
    const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
    const rows = [...readme.matchAll(/^\| `(api-contracts-[^`]+\.tgz)` \| ([\d.]+) kB \| ([\d.]+) kB \|/gm)].map((row) => ({ file: row[1]!, size: Number(row[2]), unpacked: Number(row[3]) }));
    const reports = publicPackages.map(({ manifest }) => tarballOf(manifest.name));
    expect(rows.map((row) => row.file).sort()).toEqual(reports.map((report) => report.filename).sort());
    // The table as it should read, for the README when a size has drifted.
    const table = reports.map((report) => `| \`${report.filename}\` | ${(report.size / 1000).toFixed(1)} kB | ${(report.unpackedSize / 1000).toFixed(1)} kB |`).sort().join("\n");
    for (const row of rows) {
      const report = reports.find((candidate) => candidate.filename === row.file)!;
      expect(Math.abs(row.size * 1000 - report.size) / report.size, `${row.file} packed; the rows now:\n${table}\n`).toBeLessThan(0.1);
      expect(Math.abs(row.unpacked * 1000 - report.unpackedSize) / report.unpackedSize, `${row.file} unpacked; the rows now:\n${table}\n`).toBeLessThan(0.1);
    }
  });
});

// One program, compiled twice: as an ES module (.mts) and as CommonJS (.cts, where each import
// becomes a require() of the ES module build). It loads every entry of every package and calls
// both clients against the installed mock, then takes the entitlements client down its fault paths.
const program = `
import { createServer, type AddressInfo } from "node:net";
import { createEntitlementsClient, TimeoutError, type CheckResponse, type EntitlementsError } from "@api-contracts/entitlements-client";
import { failOpen, isNetworkError, retry, timeout } from "@api-contracts/entitlements-client/middleware";
import { createWebdataClient, type CrawlStarted, type TokenUsage } from "@api-contracts/webdata-client";
import { retry as webdataRetry } from "@api-contracts/webdata-client/middleware";
import { createApiClient } from "@api-contracts/client-runtime";
import { settle } from "@api-contracts/client-runtime/middleware";
import { listApis } from "@api-contracts/contract-core";
import { checkFixtures, fixturesTemplate, type Fixtures } from "@api-contracts/contract-tests";
import { startMockServer } from "@api-contracts/mock-server";
import { startReferenceServer } from "@api-contracts/reference-server";
import { startContractProxy } from "@api-contracts/contract-proxy";
import { startLocalStack } from "@api-contracts/local-stack";
import { startDocsServer } from "@api-contracts/docs/server";

/** A port nothing listens on: a server's, closed again. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** What the client does when the network fails: a reset connection, a refused one, an answer that never comes. */
async function faultPaths() {
  const check = { body: { customer_id: "cus_1", feature_id: "messages" } };
  const failure = (error: unknown) => ({ networkError: isNetworkError(error), timeout: error instanceof TimeoutError });
  let attempts = 0;
  const retried: Array<number | string> = [];
  const counting = createEntitlementsClient({
    apiKey: "am_sk_test",
    baseUrl: process.env.ENTITLEMENTS_URL,
    fetch: (request) => {
      attempts++;
      return fetch(request);
    },
    retry: retry({ baseDelayMs: 10, onRetry: (event) => retried.push(event.reason) }),
  });
  const reset = await counting.POST("/v1/balances.check", { ...check, headers: { Prefer: "fault=reset" } }).then(({ response }) => ({ status: response.status }), failure);
  const closed = \`http://127.0.0.1:\${await closedPort()}\`;
  const open = await createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: closed, failOpen: failOpen() })
    .POST("/v1/balances.check", check)
    .then(({ data, response }) => ({ status: response.status, allowed: data?.allowed, cause: response.headers.get("x-fail-open") }), failure);
  const refused = await createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: closed }).POST("/v1/balances.check", check).then(({ response }) => ({ status: response.status }), failure);
  const hang = await createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: process.env.ENTITLEMENTS_URL, timeoutMs: 300 })
    .POST("/v1/balances.check", { ...check, headers: { Prefer: "fault=hang" } })
    .then(({ response }) => ({ status: response.status }), failure);
  // A configuration error is no outage: refused at construction, and never answered by failOpen.
  const misconfigured = ["localhost:5511", "ftp://x"].map((baseUrl) => {
    try {
      return createEntitlementsClient({ apiKey: "am_sk_test", baseUrl, failOpen: failOpen() }) && "accepted";
    } catch (error) {
      return (error as Error).message;
    }
  });
  const unsendable = await createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: process.env.ENTITLEMENTS_URL, failOpen: failOpen() })
    .POST("/v1/balances.check", { ...check, baseUrl: "ftp://x" })
    .then(({ response }) => ({ status: response.status }), failure);
  return { reset: { attempts, retried, outcome: reset }, open, refused, hang, misconfigured, unsendable };
}

async function main(): Promise<void> {
  const entitlements = createEntitlementsClient({ apiKey: "am_sk_test", baseUrl: process.env.ENTITLEMENTS_URL, retry: retry(), timeoutMs: 5000 });
  const checked = await entitlements.POST("/v1/balances.check", { body: { customer_id: "cus_1", feature_id: "messages" } });
  const decision: CheckResponse | undefined = checked.data;
  const tracked = await entitlements.POST("/v1/balances.track", { body: { customer_id: "cus_1", feature_id: "messages" }, headers: { Prefer: "code=404" } });
  const failure: EntitlementsError | undefined = tracked.error;
  // @ts-expect-error -- the installed types reject an unknown path
  const unknown = await entitlements.POST("/v1/nope", { body: {} });

  const webdata = createWebdataClient({ apiKey: "fc-test", baseUrl: process.env.WEBDATA_URL, retry: webdataRetry() });
  const crawl = await webdata.POST("/v2/crawl", { body: { url: "https://example.com" } });
  const started: CrawlStarted | undefined = crawl.data;
  const usage = await webdata.GET("/v2/team/token-usage");
  const tokens: TokenUsage | undefined = usage.data?.data;
  // @ts-expect-error -- the installed types reject a crawl without url
  const invalid = await webdata.POST("/v2/crawl", { body: {} });

  const fixtures: Fixtures = checkFixtures({ webdata: { monitor_id: "m", crawl_url: "https://example.com" } });
  const entries = { retry, timeout, webdataRetry, settle, createApiClient, startMockServer, startReferenceServer, startContractProxy, startLocalStack, startDocsServer, fixturesTemplate };
  console.log(JSON.stringify({
    allowed: decision?.allowed,
    trackStatus: tracked.response.status,
    code: failure?.code,
    unknown: unknown.response.status,
    crawlId: typeof started?.id,
    tokens: typeof tokens?.remainingTokens,
    invalid: invalid.response.status,
    apis: listApis().map((api) => api.name),
    fixtures: fixtures.webdata?.crawl_url,
    notFunctions: Object.entries(entries).filter(([, value]) => typeof value !== "function").map(([name]) => name),
    faults: await faultPaths(),
  }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
`;

// A webhook receiver per client, as a user writes one: Standard Webhooks (Autumn) with the
// standardwebhooks library (installed beside the client, as a receiver's tests would), a fresh call then a stale one; Firecrawl's own test
// vector, then the same body tampered with.
const receivers = {
  entitlements: `
import { Webhook } from "standardwebhooks";
import { verifyWebhook, WebhookVerificationError, type EntitlementsWebhookEvent } from "@api-contracts/entitlements-client/webhooks";

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const body = '{"type":"balances.limit_reached","data":{"customer_id":"cus_1","feature_id":"messages","limit_type":"included"}}';
const signed = (seconds: number) => ({ "svix-id": "msg_1", "svix-timestamp": String(seconds), "svix-signature": new Webhook(secret).sign("msg_1", new Date(seconds * 1000), body) });
const now = Math.floor(Date.now() / 1000);
const event: EntitlementsWebhookEvent = await verifyWebhook(body, signed(now), secret);
const refused = await verifyWebhook(body, signed(now - 3600), secret).catch((error: unknown) => error instanceof WebhookVerificationError ? error.reason : "other");
console.log(JSON.stringify({ type: event.type, refused }));
`,
  webdata: `
import { verifyWebhook, WebhookVerificationError, type WebdataWebhookEvent } from "@api-contracts/webdata-client/webhooks";

const body = '{"success":true,"type":"crawl.page","id":"crawl-123","webhookId":"webhook-123","data":[]}';
const headers = { "x-firecrawl-signature": "sha256=29729c39fd5f57c6f4d50c86dd20256a5d77b7b39d19531c17805163fb830d40" };
const event: WebdataWebhookEvent = await verifyWebhook(body, headers, "secret");
const refused = await verifyWebhook(body.replace("123", "124"), headers, "secret").catch((error: unknown) => error instanceof WebhookVerificationError ? error.reason : "other");
console.log(JSON.stringify({ type: event.type, refused }));
`,
};

// The docs as `npm start` serves them, from the installed local stack on free ports: the page loads
// the console's script and names the mock it runs beside, and the relay carries a check to that mock.
const docsConsoleProbe = `
import { gzipSync } from "node:zlib";
import { startLocalStack } from "@api-contracts/local-stack";

const stack = await startLocalStack({ ports: { entitlements: 0, webdata: 0 }, docsPort: 0 });
try {
  const url = (name) => stack.servers.find((server) => server.name === name).url;
  const docs = url("docs");
  const page = await (await fetch(\`\${docs}/entitlements.html\`)).text();
  const script = new Uint8Array(await (await fetch(\`\${docs}/api-console.js\`)).arrayBuffer());
  const config = await (await fetch(\`\${docs}/_console/config.json\`)).json();
  const relayed = await fetch(\`\${docs}/_relay/v1/balances.check\`, {
    method: "POST",
    headers: { origin: docs, "sec-fetch-site": "same-origin", "x-relay-target": config.targets.entitlements.mock, authorization: "Bearer am_sk_test", "content-type": "application/json" },
    body: JSON.stringify({ customer_id: "cus_1", feature_id: "messages" }),
  });
  console.log(JSON.stringify({
    scriptTag: /<script[^>]+src="api-console\\.js"/.test(page),
    pageNamesMock: page.includes(url("entitlements")),
    scriptGzipped: gzipSync(script, { level: 9 }).length,
    targets: config.targets,
    relayed: relayed.status,
  }));
} finally {
  await stack.close();
}
`;

/** What each receiver prints, and a call of the browser bundle's verifyWebhook with what it returns. */
const webhookCases = {
  entitlements: {
    printed: { type: "balances.limit_reached", refused: "timestamp_out_of_tolerance" },
    webType: "balances.usage_alert_triggered",
    webArguments: () => {
      const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
      const body = '{"type":"balances.usage_alert_triggered","data":{"customer_id":"c","feature_id":"f","usage_alert":{"threshold":80,"threshold_type":"usage_percentage"}}}';
      const seconds = Math.floor(Date.now() / 1000);
      return [body, new Headers({ "webhook-id": "msg_2", "webhook-timestamp": String(seconds), "webhook-signature": new Webhook(secret).sign("msg_2", new Date(seconds * 1000), body) }), secret];
    },
  },
  webdata: {
    printed: { type: "crawl.page", refused: "invalid_signature" },
    webType: "crawl.started",
    webArguments: () => {
      const body = '{"success":true,"type":"crawl.started","id":"a","webhookId":"b","data":[]}';
      return [new TextEncoder().encode(body), new Headers({ "x-firecrawl-signature": `sha256=${createHmac("sha256", "s").update(body).digest("hex")}` }), "s"];
    },
  },
};

const tsconfig = {
  compilerOptions: {
    strict: true,
    noUncheckedIndexedAccess: true,
    module: "nodenext",
    moduleResolution: "nodenext",
    target: "es2022",
    types: ["node"],
    rootDir: "src",
    outDir: "dist",
  },
  include: ["src"],
};

describe("a strict nodenext project that installs the tarballs", () => {
  let mock: Awaited<ReturnType<Consumer["start"]>>;
  const mockUrl = (api: string) => mock.matches.find((match) => match[1] === api)![2]!;
  beforeAll(async () => {
    consumer.write("tsconfig.json", JSON.stringify(tsconfig, null, 2));
    await consumer.exec("mkdir", ["-p", "src"]);
    consumer.write("src/program.mts", program);
    consumer.write("src/program.cts", program);
    for (const [api, source] of Object.entries(receivers)) consumer.write(`src/receiver-${api}.mts`, source);
    mock = await consumer.start("npx", ["@api-contracts/local-stack", "--webdata-port", "0", "--entitlements-port", "0"], /^(\w+)\s+(http:\/\/\S+)$/, 2);
  }, 120_000);
  afterAll(() => mock?.stop());

  it("installed with npm install ./<tarball>..., next to TypeScript 7, with no peer to satisfy", async () => {
    const installed = JSON.parse(readFileSync(path.join(consumer.dir, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    expect(Object.keys(installed.dependencies)).toEqual(expect.arrayContaining([...publicPackages.map(({ manifest }) => manifest.name), "typescript", "typescript-5.9"]));
    const { stdout } = await consumer.exec("npm", ["ls", "--all", "--json"]).catch((error: { stdout: string }) => error);
    expect(JSON.parse(stdout).problems ?? []).toEqual([]);
  }, 60_000);

  it.each([
    ["newest", "typescript/bin/tsc", /^Version 7\./],
    ["5.9", "typescript-5.9/bin/tsc", /^Version 5\.9\./],
  ])("type-checks with TypeScript %s, the .mts program and the .cts one", async (_label, tsc, version) => {
    const { stdout: shown } = await consumer.exec(process.execPath, [path.join("node_modules", tsc), "--version"]);
    console.log(`TypeScript used by the installed project: ${shown.trim()} (node_modules/${tsc})`);
    expect(shown.trim()).toMatch(version);
    const checked = await consumer.exec(process.execPath, [path.join("node_modules", tsc), "-p", "."]).catch((error: { stdout: string }) => error);
    expect(checked.stdout).toBe("");
  }, 120_000);

  /** What the program prints when every entry loaded and both clients were answered by the mock. */
  const expectedProgramOutput = () => {
    const entitlements = loadBundle("entitlements");
    return {
      allowed: (specExample(entitlements, "POST", "/v1/balances.check").body as { allowed: boolean }).allowed,
      trackStatus: 404,
      code: (specExample(entitlements, "POST", "/v1/balances.track", "404").body as { code: string }).code,
      unknown: 404,
      crawlId: "string",
      tokens: "number",
      invalid: 400,
      apis: ["entitlements", "webdata"],
      fixtures: "https://example.com",
      notFunctions: [],
      // A reset is retried twice (3 attempts) and ends in a network error; a closed port fails a
      // check open and rejects a plain call with a network error; a hang ends at timeoutMs; a base
      // URL of another scheme is refused at construction, and a call fetch refuses to send (a
      // per-call one) is rejected, not failed open.
      faults: {
        reset: { attempts: 3, retried: ["network-error", "network-error"], outcome: { networkError: true, timeout: false } },
        open: { status: 202, allowed: true, cause: "network error" },
        refused: { networkError: true, timeout: false },
        hang: { networkError: false, timeout: true },
        misconfigured: ["localhost:5511", "ftp://x"].map((baseUrl) => `createEntitlementsClient: baseUrl must be an http:// or https:// URL, got "${baseUrl}"`),
        unsendable: { networkError: false, timeout: false },
      },
    };
  };
  const compiled = [
    ["an ES module", "program.mjs", /^import \{ createEntitlementsClient, .*\} from "@api-contracts\/entitlements-client";$/m],
    ["CommonJS", "program.cjs", /require\("@api-contracts\/entitlements-client"\)/],
  ] as const;

  it.each(compiled)("runs under node as %s against the installed mock, fault paths included", async (_label, file, loads) => {
    expect(readFileSync(path.join(consumer.dir, "dist", file), "utf8")).toMatch(loads);
    const { stdout } = await consumer.exec(process.execPath, [path.join("dist", file)], { ENTITLEMENTS_URL: mockUrl("entitlements"), WEBDATA_URL: mockUrl("webdata") });
    expect(JSON.parse(stdout)).toEqual(expectedProgramOutput());
  }, 60_000);

  it.skipIf("skip" in bun).each(compiled)("runs under Bun as %s against the installed mock, fault paths included", async (_label, file) => {
    if ("fail" in bun) throw new Error(bun.fail);
    const { stdout: version } = await consumer.exec(bun.run, ["--version"]);
    console.log(`Bun used for the installed project: ${version.trim()} (${bun.run})`);
    const { stdout } = await consumer.exec(bun.run, [path.join("dist", file)], { ENTITLEMENTS_URL: mockUrl("entitlements"), WEBDATA_URL: mockUrl("webdata") });
    expect(JSON.parse(stdout)).toEqual(expectedProgramOutput());
  }, 60_000);

  // Bun answers a bare `undici` import with a stand-in whose Pool cannot dispatch: the proxy, which
  // forwards through undici, is run under Bun to keep its file import honest.
  it.skipIf("skip" in bun)("the installed contract-proxy runs under Bun and forwards to the mock", async () => {
    if ("fail" in bun) throw new Error(bun.fail);
    const bin = path.join("node_modules", "@api-contracts", "contract-proxy", "bin", "contract-proxy.js");
    const proxy = await consumer.start(bun.run, [bin, "--service", "entitlements", "--upstream", mockUrl("entitlements")], /^(http:\/\/\S+)$/);
    try {
      const answer = await fetch(`${proxy.matches[0]![1]}/v1/balances.check`, {
        method: "POST",
        headers: { authorization: "Bearer am_sk_test", "content-type": "application/json" },
        body: JSON.stringify({ customer_id: "cus_1", feature_id: "messages" }),
      });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { allowed: boolean }).allowed).toBe(expectedProgramOutput().allowed);
    } finally {
      const { stdout } = await proxy.stop();
      expect(stdout).toContain("1 exchange, 0 violations");
    }
  }, 60_000);

  it.each(["entitlements", "webdata"] as const)("the %s client's verifyWebhook works in a Node program and bundled for a runtime with only web-standard globals", async (api) => {
    const { stdout } = await consumer.exec(process.execPath, [path.join("dist", `receiver-${api}.mjs`)]);
    expect(JSON.parse(stdout)).toEqual(webhookCases[api].printed);
    const bundled = await loadForWebRuntime<{ verifyWebhook: (...args: unknown[]) => Promise<unknown> }>(consumer.dir, `@api-contracts/${api}-client/webhooks`, ["verifyWebhook"]);
    expect(await bundled.verifyWebhook(...webhookCases[api].webArguments())).toMatchObject({ type: webhookCases[api].webType });
  }, 60_000);

  it("the installed local stack serves the docs with their console: the script (within its 80 kB gzipped), the pages naming the running mocks, and the relay", async () => {
    consumer.write("docs-console.mjs", docsConsoleProbe);
    const { stdout } = await consumer.exec(process.execPath, ["docs-console.mjs"]);
    const seen = JSON.parse(stdout) as { scriptTag: boolean; pageNamesMock: boolean; scriptGzipped: number; targets: Record<string, { mock?: string }>; relayed: number };
    console.log(`the installed docs console's script: ${seen.scriptGzipped} bytes gzipped`);
    expect(seen).toMatchObject({ scriptTag: true, pageNamesMock: true, relayed: 200 });
    expect(Object.keys(seen.targets).sort()).toEqual(["entitlements", "webdata"]);
    expect(seen.scriptGzipped).toBeLessThanOrEqual(80_000);
  }, 60_000);

  it("npx @api-contracts/contract-proxy in front of the installed mock passes a valid call and reports a broken one", async () => {
    const proxy = await consumer.start("npx", ["@api-contracts/contract-proxy", "--service", "entitlements", "--upstream", mockUrl("entitlements"), "--report", "violations.jsonl"], /^(http:\/\/\S+)$/);
    try {
      const send = (body: unknown) =>
        fetch(`${proxy.matches[0]![1]}/v1/balances.check`, { method: "POST", headers: { authorization: "Bearer am_sk_test", "content-type": "application/json" }, body: JSON.stringify(body) });
      expect((await send({ customer_id: "cus_1", feature_id: "messages" })).status).toBe(200);
      expect((await send({ feature_id: "messages" })).status).toBe(400);
    } finally {
      const { stdout } = await proxy.stop();
      expect(stdout).toContain("2 exchanges, 1 violation");
    }
    const [violation, ...more] = readFileSync(path.join(consumer.dir, "violations.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(more).toEqual([]);
    expect(JSON.stringify(violation)).toMatch(/customer_id/);
  }, 60_000);

  it("npx @api-contracts/local-stack stops when its npx is killed, as a CI script stops it: its ports are free within 2 s", async () => {
    const started = await consumer.start("npx", ["@api-contracts/local-stack", "--webdata-port", "0", "--entitlements-port", "0"], /^(\w+)\s+(http:\/\/\S+)$/, 2);
    const ports = started.matches.map((match) => Number(new URL(match[2]!).port));
    const killed = Date.now();
    try {
      // npx alone, as `kill $!` does: npm does not pass the signal on to the mock it runs.
      process.kill(started.pid, "SIGTERM");
      const listening = (port: number) => fetch(`http://127.0.0.1:${port}/`).then(() => true, () => false);
      while ((await Promise.all(ports.map(listening))).some(Boolean) && Date.now() - killed < 5000) await new Promise((resolve) => setTimeout(resolve, 25));
      console.log(`the installed mock's ports free ${Date.now() - killed} ms after kill of its npx`);
      expect(Date.now() - killed).toBeLessThanOrEqual(2000);
    } finally {
      await started.stop();
    }
  }, 60_000);

  it("npx @api-contracts/contract-tests init writes fixtures that, filled from npx @api-contracts/reference-server --write-fixtures, drive a passing behavior run against it", async () => {
    await consumer.exec("npx", ["@api-contracts/reference-server", "--write-fixtures", "world.json"]);
    await consumer.exec("npx", ["@api-contracts/contract-tests", "init", "--service", "entitlements", "--out", "fixtures.json"]);
    const world = JSON.parse(readFileSync(path.join(consumer.dir, "world.json"), "utf8")) as { entitlements: Record<string, string>; api_keys: { entitlements: string } };
    const fixtures = JSON.parse(readFileSync(path.join(consumer.dir, "fixtures.json"), "utf8")) as { entitlements: Record<string, string> };
    expect(Object.keys(fixtures.entitlements).sort()).toEqual(Object.keys(world.entitlements).sort());
    fixtures.entitlements = Object.fromEntries(Object.keys(fixtures.entitlements).map((member) => [member, world.entitlements[member]!]));
    consumer.write("fixtures.json", JSON.stringify(fixtures, null, 2));
    // Deadlines shorter than the kit's --timeout, so its stalled-request probes see the server's 408.
    const server = await consumer.start(
      "npx",
      ["@api-contracts/reference-server", "--service", "entitlements", "--entitlements-port", "0", "--fixtures", "world.json", "--request-timeout", "2000", "--headers-timeout", "2000"],
      /listening on (http:\/\/\S+)$/,
    );
    try {
      const kit = await consumer.exec("npx", ["@api-contracts/contract-tests", "--service", "entitlements", "--base-url", server.matches[0]![1]!, "--level", "behavior", "--fixtures", "fixtures.json"], {
        CONTRACT_API_KEY: world.api_keys.entitlements,
      });
      expect(kit.stdout).toMatch(/^\d+ passed, 0 failed/m);
      expect(kit.stdout).toMatch(/^PASS checkAccess /m);
    } finally {
      await server.stop();
    }
  }, 120_000);
});

describe("npm run registry: the packages by name, as they will be once published", () => {
  // Stands in for the npm registry, which tests never reach: it serves what the project above got.
  let upstream: Awaited<ReturnType<typeof startRegistry>>;
  let registry: Awaited<ReturnType<Consumer["start"]>>;
  const projects: string[] = [];
  const registryUrl = () => registry.matches[0]![1]!;
  beforeAll(async () => {
    upstream = await startRegistry({ tarballDir: path.join(consumer.dir, ".tarballs") });
    registry = await consumer.start(process.execPath, [path.join(repoRoot, "scripts", "registry.mjs"), "--port", "0", "--upstream", upstream.url], /^(http:\/\/127\.0\.0\.1:\d+)$/);
  }, 120_000);
  afterAll(async () => {
    await registry?.stop();
    await upstream?.close();
    for (const dir of projects) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  /** A fresh project (an empty npm cache of its own) that runs `npm install <args>` as the registry's own lines say. */
  async function installInFreshProject(args: string[]) {
    const dir = mkdtempSync(path.join(tmpdir(), "api-contracts-by-name-"));
    projects.push(dir);
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "by-name", private: true, type: "module", overrides }));
    const exec = (command: string, commandArgs: string[]) => run(command, commandArgs, { cwd: dir, encoding: "utf8", env: npmEnv(), maxBuffer: 16 * 1024 * 1024 });
    // The lockfile keeps each package's tarball URL (a user's npmrc may omit those of the registry), which tells where it came from.
    await exec("npm", ["install", ...args, "--cache", path.join(dir, ".npm-cache"), "--no-audit", "--no-fund", "--omit-lockfile-registry-resolved=false"]);
    const lock = JSON.parse(readFileSync(path.join(dir, "package-lock.json"), "utf8")) as { packages: Record<string, { resolved?: string }> };
    return { dir, exec, resolved: (name: string) => lock.packages[`node_modules/${name}`]?.resolved };
  }

  it("prints its URL and the install lines, and answers only what a registry is asked, within limits", async () => {
    // The URL line starts the test; the lines after it may still be on their way.
    await expect.poll(() => registry.output().stdout).toContain(`npm install @api-contracts/webdata-client --registry ${registryUrl()}`);
    const printed = registry.output().stdout;
    expect(printed).toContain(`--@api-contracts:registry=${registryUrl()}`);
    for (const { manifest } of publicPackages) expect(printed).toContain(manifest.name);
    expect((await fetch(`${registryUrl()}/@api-contracts%2fwebdata-client`, { method: "PUT", body: "{}" })).status).toBe(405);
    expect((await fetch(`${registryUrl()}/${"a".repeat(4096)}`)).status).toBe(414);
    expect((await fetch(`${registryUrl()}/-/..%2fpackage.json`)).status).toBe(404);
  });

  it("installs a client and the mock in a fresh project by package name; the mock answers the client", async () => {
    const project = await installInFreshProject(["@api-contracts/webdata-client", "@api-contracts/local-stack", "--registry", registryUrl()]);
    expect(project.resolved("@api-contracts/contract-core")).toMatch(new RegExp(`^${registryUrl()}/-/`));
    expect(project.resolved("openapi-fetch")).toMatch(new RegExp(`^${upstream.url}/-/`));
    const { stdout: problems } = await project.exec("npm", ["ls", "--all", "--json"]).catch((error: { stdout: string }) => error);
    expect(JSON.parse(problems).problems ?? []).toEqual([]);
    writeFileSync(
      path.join(project.dir, "usage.mjs"),
      'import { createWebdataClient } from "@api-contracts/webdata-client";\nconst { response } = await createWebdataClient({ apiKey: "fc-test", baseUrl: process.env.WEBDATA_URL }).GET("/v2/team/token-usage");\nconsole.log(response.status);\n',
    );
    const mock = await startCommand(project.dir, "npx", ["@api-contracts/local-stack", "--only", "webdata", "--webdata-port", "0"], /^webdata\s+(http:\/\/\S+)$/);
    try {
      const { stdout } = await run(process.execPath, ["usage.mjs"], { cwd: project.dir, encoding: "utf8", env: { ...npmEnv(), WEBDATA_URL: mock.matches[0]![1]! } });
      expect(stdout.trim()).toBe("200");
    } finally {
      await mock.stop();
    }
  }, 180_000);

  it("serves the @api-contracts scope alone to a project that keeps its own registry for everything else", async () => {
    const project = await installInFreshProject(["@api-contracts/client-runtime", "--registry", upstream.url, `--@api-contracts:registry=${registryUrl()}`]);
    expect(project.resolved("@api-contracts/client-runtime")).toMatch(new RegExp(`^${registryUrl()}/-/`));
    expect(project.resolved("openapi-fetch")).toMatch(new RegExp(`^${upstream.url}/-/`));
  }, 120_000);
});
