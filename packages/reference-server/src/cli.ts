import { parseArgs } from "node:util";
import { contractOf } from "@api-contracts/contract-core";
import { describeDeliveryReport, onStopRequest, type DeliveryReport } from "@api-contracts/contract-core/server";
import { defaultFixtures, loadFixtures, writeFixtures, FixturesError, type Fixtures } from "./fixtures.js";
import { SERVICES, startReferenceServer, type ReferenceLimits, type ReferenceServer, type ReferenceServerOptions, type Service } from "./server.js";
import { webhookTarget } from "./webhooks.js";

/** What the command knows of each API it serves: all from the API's facts and description. */
const APIS = SERVICES.map((name) => {
  const contract = contractOf(name);
  return { name, port: contract.api.mockPort, bodyBytes: contract.api.limits.bodyBytes, webhooks: webhookTarget(contract), signature: contract.validators.webhookSignature };
});
const SIGNS_JOBS = APIS.filter((api) => api.webhooks === "per-request");
const ENDPOINTS = APIS.filter((api) => api.webhooks === "endpoint");

/** One option of the help: the flag, then its description from column 30 (on the next line when the flag is longer). */
const row = (flag: string, ...lines: string[]): string => {
  const indent = " ".repeat(29);
  const head = flag.length <= 26 ? `  ${flag.padEnd(27)}${lines[0]}` : `  ${flag}\n${indent}${lines[0]}`;
  return [head, ...lines.slice(1).map((line) => `${indent}${line}`)].join("\n");
};

/** How a description signs its webhook calls, in a few words. */
function signatureWords(api: (typeof APIS)[number]): string {
  const scheme = api.signature;
  if (scheme?.scheme === "hmac-sha256-hex") return `${scheme.signatureHeader}: ${scheme.prefix}<hex HMAC-SHA256 of the body>`;
  if (scheme?.scheme === "standard-webhooks") return "Standard Webhooks, a secret of whsec_ and a base64 key";
  return "unsigned";
}

// The keys printed here and at start are the fixtures' api_keys: test keys of a local server, which
// a client needs in order to talk to it, so printing them is intended. No other secret (a webhook
// secret) is ever printed.
const USAGE = `Usage: reference-server [options]

Serves a stateful in-memory implementation of the ${SERVICES.join(" and ")} APIs.

Options:
${row("--service <name>", `${SERVICES.join(", ")} or both (default: both)`)}
${row("--host <host>", "interface to listen on (default: 127.0.0.1)")}
${APIS.map((api) => row(`--${api.name}-port <n>`, `port of the ${api.name} API (default: ${api.port})`)).join("\n")}
${row("--fixtures <file>", "seed the servers, and the key each accepts, from this fixtures", "file (default: the built-in world and keys)")}
${row("--write-fixtures <file>", "write the built-in fixtures to <file> and exit")}
${row("--public-url <url>", "base of the URLs an API hands out, e.g. a started crawl's url", "(default: the address it listens on)")}
${row("--help", "show this help")}

Keys: each API accepts one key, sent as Authorization: Bearer <key>: the fixtures'
api_keys.<name>, test keys of this local server. Those of the built-in fixtures:
${APIS.map((api) => row(api.name, defaultFixtures.api_keys[api.name])).join("\n")}
A --fixtures file sets others (its api_keys); --write-fixtures writes these to edit.

Webhooks (each call's end is printed on stderr):
${[
  ...(SIGNS_JOBS.length > 0 ? [row("--webhook-secret <secret>", "sign the calls of jobs a request names a webhook for, unsigned", "without it", ...SIGNS_JOBS.map((api) => `${api.name}: ${signatureWords(api)}`))] : []),
  ...ENDPOINTS.flatMap((api) => [row(`--${api.name}-webhook <url>`, `send the ${api.name} API's webhook calls to <url>`), row(`--${api.name}-webhook-secret <secret>`, "... signed with this secret (required with it)", `${api.name}: ${signatureWords(api)}`)]),
].join("\n")}

Limits (positive integers; see the README's limits table):
${row("--body-limit <bytes>", "largest request body; a larger Content-Length is 413 at once", `(default: ${APIS.map((api) => `${api.bodyBytes} ${api.name}`).join(", ")})`)}
${row("--request-timeout <ms>", "time to receive a whole request (default: 5000); then 408")}
${row("--headers-timeout <ms>", "time to receive the request headers (default: 5000); then 408")}
${row("--idle-timeout <ms>", "close a connection silent this long (default: 60000)")}
${row("--linger-bytes <bytes>", "after an early answer (413, 401, a refused request), read and", "drop this much of what the client still sends (default: 67108864)")}
${row("--linger-ms <ms>", "... for at most this long (default: 5000); then close")}
${row("--max-locks <n>", "live locks kept (default: 100000); more are 429")}
${row("--max-idempotency-keys <n>", "idempotency keys remembered per server (default: 100000);", "the oldest is forgotten first")}
${row("--idempotency-key-ttl <ms>", "how long an idempotency key is remembered (default: 86400000)")}
${row("--max-crawls <n>", "crawls started through the API kept (default: 10000); the", "oldest is forgotten first")}
${row("--webhook-timeout <ms>", "abort a webhook call not answered in time (default: 10000)")}
${row("--max-pending-webhooks <n>", "webhook calls waiting or in flight (default: 1000); more", "are dropped, a crawl's calls all or none")}
`;

/** Limit flags and the option each sets. */
const LIMIT_FLAGS: Record<string, keyof ReferenceLimits> = {
  "body-limit": "bodyLimitBytes",
  "request-timeout": "requestTimeoutMs",
  "headers-timeout": "headersTimeoutMs",
  "idle-timeout": "idleTimeoutMs",
  "linger-bytes": "lingerBytes",
  "linger-ms": "lingerMs",
  "max-locks": "maxLocks",
  "max-idempotency-keys": "maxIdempotencyKeys",
  "idempotency-key-ttl": "idempotencyKeyTtlMs",
  "max-crawls": "maxCrawls",
  "webhook-timeout": "webhookTimeoutMs",
  "max-pending-webhooks": "maxPendingWebhooks",
};

function port(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`${flag} must be a port number (0-65535), got ${value}`);
  return n;
}

class UsageError extends Error {}

function limitsOf(values: Record<string, unknown>): Partial<ReferenceLimits> {
  const limits: Partial<ReferenceLimits> = {};
  for (const [flag, name] of Object.entries(LIMIT_FLAGS)) {
    const value = values[flag];
    if (typeof value !== "string") continue;
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--${flag} must be a positive integer, got ${value}`);
    limits[name] = n;
  }
  return limits;
}

/** The webhook options of one API, from its flags. */
function webhookOptions(service: Service, values: Record<string, string | boolean | undefined>): Pick<ReferenceServerOptions, "webhookUrl" | "webhookSecret"> {
  const api = APIS.find((candidate) => candidate.name === service)!;
  if (api.webhooks === "per-request") return { webhookSecret: values["webhook-secret"] as string | undefined };
  if (api.webhooks !== "endpoint") return {};
  const webhookUrl = values[`${service}-webhook`] as string | undefined;
  const webhookSecret = values[`${service}-webhook-secret`] as string | undefined;
  if ((webhookUrl === undefined) !== (webhookSecret === undefined)) throw new UsageError(`--${service}-webhook and --${service}-webhook-secret go together`);
  return { webhookUrl, webhookSecret };
}

async function main(argv: string[]): Promise<void> {
  const text = { type: "string" } as const;
  const { values: flags } = parseArgs({
    args: argv,
    options: {
      service: { type: "string", default: "both" },
      host: { type: "string", default: "127.0.0.1" },
      ...Object.fromEntries(APIS.map((api) => [`${api.name}-port`, { type: "string" as const, default: String(api.port) }])),
      fixtures: text,
      "write-fixtures": text,
      "public-url": text,
      ...(SIGNS_JOBS.length > 0 ? { "webhook-secret": text } : {}),
      ...Object.fromEntries(ENDPOINTS.flatMap((api) => [[`${api.name}-webhook`, text], [`${api.name}-webhook-secret`, text]])),
      ...Object.fromEntries(Object.keys(LIMIT_FLAGS).map((flag) => [flag, text])),
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  const values = flags as Record<string, string | boolean | undefined>;
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const writeTo = values["write-fixtures"] as string | undefined;
  if (writeTo) {
    writeFixtures(writeTo);
    process.stdout.write(`wrote ${writeTo}\n`);
    return;
  }
  const chosen = values.service as string;
  const services: Service[] = chosen === "both" ? [...SERVICES] : SERVICES.filter((service) => service === chosen);
  if (services.length === 0) throw new UsageError(`--service must be ${SERVICES.join(", ")} or both, got ${chosen}`);
  const ports = Object.fromEntries(services.map((service) => [service, port(values[`${service}-port`] as string, `--${service}-port`)]));
  const fixturesFile = values.fixtures as string | undefined;
  const fixtures: Fixtures = fixturesFile ? loadFixtures(fixturesFile) : defaultFixtures;
  const limits = limitsOf(values);

  const servers: ReferenceServer[] = [];
  onStopRequest(() => void Promise.all(servers.map((s) => s.close())).then(() => process.exit(0)));
  for (const service of services) {
    const onWebhookReport = (report: DeliveryReport): void => void process.stderr.write(`${service} webhook ${describeDeliveryReport(report)}\n`);
    const options = { service, host: values.host as string, port: ports[service], fixtures, limits, publicUrl: values["public-url"] as string | undefined, ...webhookOptions(service, values), onWebhookReport };
    const server = await startReferenceServer(options).catch((error: unknown) => {
      // The options are checked when the server is made (a webhook URL or secret it cannot use): the caller's mistake.
      throw error instanceof TypeError ? new UsageError(error.message) : error;
    });
    servers.push(server);
    // The fixtures' key for this API (a test key of this local server; see the comment above USAGE).
    const key = fixtures.api_keys?.[service];
    const source = fixturesFile === undefined ? "the built-in fixtures" : fixturesFile;
    process.stdout.write(`${service} reference server listening on ${server.url}\n  accepts Authorization: Bearer ${key} (api_keys.${service} of ${source}; --fixtures <file> sets another)\n`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const known = error instanceof UsageError || error instanceof FixturesError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
  process.stderr.write(`reference-server: ${(error as Error).message}\n${known && !(error instanceof FixturesError) ? `\n${USAGE}` : ""}`);
  process.exit(known ? 2 : 1);
});
