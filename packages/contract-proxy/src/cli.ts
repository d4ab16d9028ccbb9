import { parseArgs } from "node:util";
import { listApis } from "@api-contracts/contract-core";
import { startContractProxy, type ContractProxy } from "./proxy.js";
import type { Violation } from "./report.js";

const USAGE = `Usage: contract-proxy --service <entitlements|webdata> --upstream <URL> [options]

Forwards every request to the upstream and judges each request and answer against the API's
description; prints the URL it listens on, then one line per violation on stderr.

Options:
  --service <name>     the API the traffic speaks: ${listApis().map((a) => a.name).join(" or ")}
  --upstream <URL>     base URL of the implementation to forward to
  --host <host>        interface to listen on (default: 127.0.0.1)
  --port <n>           port to listen on; 0 picks a free one (default: 0)
  --strict             refuse requests and replace answers that break the contract
  --report <file>      append each violation to <file> as one JSON line
  --help               show this help
`;

class UsageError extends Error {}

function describe(v: Violation): string {
  const first = v.errors[0];
  const more = v.errors.length > 1 ? ` (and ${v.errors.length - 1} more)` : "";
  const what = first ? `${first.in}${first.pointer} ${first.message}${more}` : "";
  return `${v.judged === false ? "not judged" : "violation"}: ${v.method} ${v.path} ${v.status} ${v.operationId ?? "(no operation)"} ${v.direction}: ${what}\n`;
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
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.help) return void process.stdout.write(USAGE);
  const known = listApis().map((a) => a.name);
  if (!values.service || !known.includes(values.service)) throw new UsageError(`--service must be ${known.join(" or ")}`);
  if (!values.upstream || !URL.canParse(values.upstream)) throw new UsageError("--upstream must be an absolute http or https URL");
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number (0-65535), got ${values.port}`);

  const proxy: ContractProxy = await startContractProxy({
    service: values.service,
    upstream: values.upstream,
    host: values.host,
    port,
    strict: values.strict,
    ...(values.report ? { report: values.report } : {}),
    onViolation: (v) => void process.stderr.write(describe(v)),
  });
  process.stdout.write(`${proxy.url}\n`);
  const stop = (): void => {
    void proxy.close().finally(() => {
      const { exchanges, violations, notJudged } = proxy.counts;
      process.stdout.write(`${exchanges} exchanges, ${violations} violations${notJudged > 0 ? `, ${notJudged} not judged` : ""}\n`);
      process.exit(0);
    });
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS") || error instanceof TypeError;
  process.stderr.write(`contract-proxy: ${(error as Error).message}\n${usage ? `\n${USAGE}` : ""}`);
  process.exit(usage ? 2 : 1);
});
