import { randomInt } from "node:crypto";
import { parseArgs } from "node:util";
import { counted, FaultsError, KnownDifferencesError, formatCoverage, listApis, loadFaults, loadKnownDifferences, parseHttpUrl, summarizeProblems } from "@api-contracts/contract-core";
import { describeFault, onStopRequest, type FaultsOptions } from "@api-contracts/contract-core/server";
import type { ContractProxy } from "./options.js";
import { startContractProxy } from "./proxy.js";
import type { Violation } from "./report.js";

const USAGE = `Usage: contract-proxy --service <name> --upstream <URL> [options]

Forwards every request to the upstream and judges each request and answer against the API's
description; prints the URL it listens on, then one line per violation on stderr.

Options:
  --service <name>     the API the traffic speaks: ${listApis().map((a) => a.name).join(" or ")}
  --upstream <URL>     base URL of the implementation to forward to
  --host <host>        interface to listen on (default: 127.0.0.1)
  --port <n>           port to listen on; 0 picks a free one (default: 0)
  --strict             refuse requests and replace answers that break the contract
  --report <file>      append each violation to <file> as one JSON line
  --coverage <file>    write what the traffic exercised to <file> as one JSON document
                       (contract-core's coverage.schema.json): per operation, the documented
                       statuses answered and not, and the request members sent and not (top-
                       level body members, query and header parameters); written at start and
                       again when the proxy stops, which also prints its summary
  --known-differences <FILE.json>
                       violations you have accepted: a JSON array of {operation, check, reason,
                       why}, the contract-test kit's format; operation is the operationId, check
                       is request or response, reason a substring of an error ("400 body/code
                       is required" for a response, "body/url is required" for a request).
                       A violation whose every error is listed is reported as known, is not
                       counted and is not replaced by --strict; entries that matched nothing are
                       listed as stale when the proxy stops
  --faults <FILE.json> inject latency and faults in front of the upstream by the rules of the
                       file (the format of @api-contracts/contract-core/faults.schema.json, as
                       api-mock --faults takes it); each fired rule is a line on stderr and an
                       "injected" line of the report; answers it makes up are never judged
  --faults-seed <n>    seed of the faults' draws, 0 to 4294967295 (default: a random one, printed)
  --webhooks <URL>     also relay and judge the API's webhook calls: a second server takes the
                       calls the upstream makes (its URL is printed on the second line: point
                       the webhook at it), judges each (its event's payload and headers, the
                       signature with --webhook-secret, and for jobs started through the proxy
                       the webhook's events, metadata and headers and the calls' order) and
                       forwards it unchanged to <URL>, the call's path and query appended
  --webhooks-port <n>  port of that server; 0 picks a free one (default: 0)
  --webhook-secret <secret>
                       the secret the upstream signs its webhook calls with
  --help               show this help
`;

/** Seeds are unsigned 32-bit integers, as the draws' generator takes them. */
const SEED_MAX = 4294967295;

class UsageError extends Error {}

function describe(v: Violation): string {
  const what = summarizeProblems(v.errors, 1);
  const kind = v.judged === false ? "not judged" : v.known ? "known" : "violation";
  const why = v.known ? ` (known difference: ${v.known.join("; ")})` : "";
  return `${kind}: ${v.method} ${v.path} ${v.status} ${v.operationId ?? "(no operation)"} ${v.direction}: ${what}${why}\n`;
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      service: { type: "string" },
      upstream: { type: "string" },
      host: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: "0" },
      strict: { type: "boolean", default: false },
      report: { type: "string" },
      coverage: { type: "string" },
      "known-differences": { type: "string" },
      faults: { type: "string" },
      "faults-seed": { type: "string" },
      webhooks: { type: "string" },
      "webhooks-port": { type: "string", default: "0" },
      "webhook-secret": { type: "string" },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.help) return void process.stdout.write(USAGE);
  const known = listApis().map((a) => a.name);
  if (!values.service || !known.includes(values.service)) throw new UsageError(`--service must be ${known.join(" or ")}`);
  if (!values.upstream || !parseHttpUrl(values.upstream)) throw new UsageError("--upstream must be an absolute http or https URL");
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number (0-65535), got ${values.port}`);
  const webhooksPort = Number(values["webhooks-port"]);
  if (!Number.isInteger(webhooksPort) || webhooksPort < 0 || webhooksPort > 65535) throw new UsageError(`--webhooks-port must be a port number (0-65535), got ${values["webhooks-port"]}`);
  if (values.webhooks !== undefined && !parseHttpUrl(values.webhooks)) throw new UsageError("--webhooks must be an absolute http or https URL: where the webhook calls are forwarded to");
  if (values["webhook-secret"] !== undefined && values.webhooks === undefined) throw new UsageError("--webhook-secret only applies with --webhooks");
  const knownDifferences = values["known-differences"] === undefined ? undefined : loadKnownDifferences(values["known-differences"]);
  const faultsSeed = values["faults-seed"];
  if (faultsSeed !== undefined && values.faults === undefined) throw new UsageError("--faults-seed only applies with --faults");
  if (faultsSeed !== undefined && (!/^\d{1,10}$/.test(faultsSeed) || Number(faultsSeed) > SEED_MAX)) throw new UsageError(`--faults-seed must be a whole number from 0 to ${SEED_MAX}, got ${faultsSeed}`);
  let faults: FaultsOptions | undefined;
  if (values.faults !== undefined) {
    const rules = loadFaults(values.faults, [values.service]);
    const seed = faultsSeed === undefined ? randomInt(SEED_MAX) : Number(faultsSeed);
    faults = { rules, seed, onFault: (event) => void process.stderr.write(`${describeFault(event)}\n`) };
    process.stderr.write(`faults: ${counted(rules.length, "rule")} from ${values.faults}, seed ${seed} (--faults-seed ${seed} repeats its draws)\n`);
  }

  const proxy: ContractProxy = await startContractProxy({
    service: values.service,
    upstream: values.upstream,
    host: values.host,
    port,
    strict: values.strict,
    ...(values.report ? { report: values.report } : {}),
    ...(values.coverage ? { coverage: values.coverage } : {}),
    ...(knownDifferences ? { knownDifferences } : {}),
    ...(faults ? { faults } : {}),
    ...(values.webhooks ? { webhooks: { to: values.webhooks, port: webhooksPort, ...(values["webhook-secret"] ? { secret: values["webhook-secret"] } : {}) } } : {}),
    onViolation: (v) => void process.stderr.write(describe(v)),
  });
  onStopRequest(() => {
    let code = 0;
    const closing = proxy.close().catch((error: unknown) => {
      process.stderr.write(`contract-proxy: ${(error as Error).message}\n`);
      code = 1;
    });
    void closing.finally(() => {
      const { exchanges, violations, known, notJudged, injected, deliveries } = proxy.counts;
      for (const line of formatCoverage(proxy.coverage())) process.stdout.write(`${line}\n`);
      process.stdout.write(
        `${counted(exchanges, "exchange")}, ${counted(violations, "violation")}${known > 0 ? `, ${known} known` : ""}${notJudged > 0 ? `, ${notJudged} not judged` : ""}${faults ? `, ${injected} injected` : ""}${proxy.webhooks ? `, ${counted(deliveries, "webhook call")} relayed` : ""}\n`,
      );
      if (knownDifferences) {
        const stale = proxy.stale();
        for (const entry of stale) process.stderr.write(`stale known difference: ${entry.operation} ${entry.check} "${entry.reason}" matched no violation (${entry.why})\n`);
        process.stderr.write(`known differences: ${counted(known, "violation")} known, ${stale.length} of ${counted(knownDifferences.length, "entry", "entries")} stale\n`);
      }
      process.exit(code);
    });
  });
  process.stdout.write(`${proxy.url}\n`);
  if (proxy.webhooks) process.stdout.write(`${proxy.webhooks}\n`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const badFile = error instanceof KnownDifferencesError || error instanceof FaultsError;
  const parseError = (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS") === true;
  const usage = !badFile && (error instanceof UsageError || parseError || error instanceof TypeError);
  process.stderr.write(`contract-proxy: ${(error as Error).message}\n${usage ? `\n${USAGE}` : ""}`);
  process.exit(usage || badFile ? 2 : 1);
});
