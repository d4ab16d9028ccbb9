import { parseArgs } from "node:util";
import { describeDeliveryReport, onStopRequest, type DeliveryReport } from "@api-contracts/contract-core/server";
import { defaultFixtures, loadFixtures, writeFixtures, FixturesError, type Fixtures } from "./fixtures.js";
import { SERVICES, startReferenceServer, type ReferenceLimits, type ReferenceServer, type Service } from "./server.js";

const USAGE = `Usage: reference-server [options]

Serves a stateful in-memory implementation of the Entitlements and Web Data APIs.

Options:
  --service <name>           entitlements, webdata or both (default: both)
  --host <host>              interface to listen on (default: 127.0.0.1)
  --entitlements-port <n>    port of the entitlements API (default: 4011)
  --webdata-port <n>         port of the web data API (default: 4010)
  --fixtures <file>          seed the servers from this fixtures file (default: built-in world)
  --write-fixtures <file>    write the built-in fixtures to <file> and exit
  --public-url <url>         base of the URLs the web data API hands out, e.g. a started
                             crawl's url (default: the address it listens on)
  --help                     show this help

Webhooks (each call's end is printed on stderr):
  --webhook-secret <secret>  web data: sign crawl webhook calls (X-Firecrawl-Signature:
                             sha256=<hex HMAC-SHA256 of the body>); unsigned without it
  --entitlements-webhook <url>
                             entitlements: send balances.limit_reached calls to <url>
  --entitlements-webhook-secret <whsec_...>
                             ... signed with this Standard Webhooks secret (required with it)

Limits (positive integers; see the README's limits table):
  --body-limit <bytes>       largest request body (default: 1048576 entitlements,
                             10485760 web data); a larger Content-Length is 413 at once
  --request-timeout <ms>     time to receive a whole request (default: 5000); then 408
  --headers-timeout <ms>     time to receive the request headers (default: 5000); then 408
  --idle-timeout <ms>        close a connection silent this long (default: 60000)
  --linger-bytes <bytes>     after an early answer (413, 401, a refused request), read and
                             drop this much of what the client still sends (default: 67108864)
  --linger-ms <ms>           ... for at most this long (default: 5000); then close
  --max-locks <n>            live locks kept (default: 100000); more are 429
  --max-idempotency-keys <n> idempotency keys remembered per server (default: 100000);
                             the oldest is forgotten first
  --idempotency-key-ttl <ms> how long an idempotency key is remembered (default: 86400000)
  --max-crawls <n>           crawls started through the API kept (default: 10000); the
                             oldest is forgotten first
  --webhook-timeout <ms>     abort a webhook call not answered in time (default: 10000)
  --max-pending-webhooks <n> webhook calls waiting or in flight (default: 1000); more
                             are dropped, a crawl's calls all or none
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

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      service: { type: "string", default: "both" },
      host: { type: "string", default: "127.0.0.1" },
      "entitlements-port": { type: "string", default: "4011" },
      "webdata-port": { type: "string", default: "4010" },
      fixtures: { type: "string" },
      "write-fixtures": { type: "string" },
      "public-url": { type: "string" },
      "webhook-secret": { type: "string" },
      "entitlements-webhook": { type: "string" },
      "entitlements-webhook-secret": { type: "string" },
      ...Object.fromEntries(Object.keys(LIMIT_FLAGS).map((flag) => [flag, { type: "string" as const }])),
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (values["write-fixtures"]) {
    writeFixtures(values["write-fixtures"]);
    process.stdout.write(`wrote ${values["write-fixtures"]}\n`);
    return;
  }
  const services: Service[] = values.service === "both" ? [...SERVICES] : [values.service as Service];
  if (!services.every((s) => SERVICES.includes(s))) throw new UsageError(`--service must be ${SERVICES.join(", ")} or both, got ${values.service}`);
  const ports: Record<Service, number> = { entitlements: port(values["entitlements-port"], "--entitlements-port"), webdata: port(values["webdata-port"], "--webdata-port") };
  const fixtures: Fixtures = values.fixtures ? loadFixtures(values.fixtures) : defaultFixtures;
  const limits = limitsOf(values);
  const publicUrl = values["public-url"];
  if (publicUrl !== undefined && !URL.canParse(publicUrl)) throw new UsageError(`--public-url must be an absolute URL, got ${publicUrl}`);

  const webhookUrl = values["entitlements-webhook"];
  if ((webhookUrl === undefined) !== (values["entitlements-webhook-secret"] === undefined)) throw new UsageError("--entitlements-webhook and --entitlements-webhook-secret go together");
  const webhooks: Record<Service, { webhookSecret?: string; webhookUrl?: string }> = {
    webdata: { webhookSecret: values["webhook-secret"] },
    entitlements: { webhookUrl, webhookSecret: values["entitlements-webhook-secret"] },
  };

  const servers: ReferenceServer[] = [];
  onStopRequest(() => void Promise.all(servers.map((s) => s.close())).then(() => process.exit(0)));
  for (const service of services) {
    const onWebhookReport = (report: DeliveryReport): void => void process.stderr.write(`${service} webhook ${describeDeliveryReport(report)}\n`);
    const server = await startReferenceServer({ service, host: values.host, port: ports[service], fixtures, limits, publicUrl, ...webhooks[service], onWebhookReport }).catch((error: unknown) => {
      // The options are checked when the server is made (a webhook URL or secret it cannot use): the caller's mistake.
      throw error instanceof TypeError ? new UsageError(error.message) : error;
    });
    servers.push(server);
    process.stdout.write(`${service} reference server listening on ${server.url}\n`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const known = error instanceof UsageError || error instanceof FixturesError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
  process.stderr.write(`reference-server: ${(error as Error).message}\n${known && !(error instanceof FixturesError) ? `\n${USAGE}` : ""}`);
  process.exit(known ? 2 : 1);
});
