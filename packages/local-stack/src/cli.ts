import { randomInt } from "node:crypto";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { counted, listApis, loadFaults, type ApiDefinition } from "@api-contracts/contract-core";
import { describeDeliveryReport, describeFault, onStopRequest, type FaultsOptions } from "@api-contracts/contract-core/server";
import { DEFAULT_REQUEST_TIMEOUT } from "@api-contracts/mock-server";
import { startApiServer, startTogether } from "./stack.js";

/** The APIs in the order of their default ports, as the command prints them. */
function apisByPort(): ApiDefinition[] {
  return listApis().sort((a, b) => a.mockPort - b.mockPort);
}

/** Words as a list in a sentence: `a`, `a or b`, `a, b or c`. */
const listed = (words: string[], last: "and" | "or") => (words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} ${last} ${words.at(-1)}`);

export function usage(): string {
  const apis = apisByPort();
  const width = Math.max(...apis.map((api) => `--${api.name}-port <port>`.length), 26) + 2;
  const portLines = apis.map((api) => `  ${`--${api.name}-port <port>`.padEnd(width)}port of the ${api.title} (default ${api.mockPort}, 0 picks a free one)`);
  return `Usage: api-mock [options]

Serves mocks of the ${listed(apis.map((api) => api.title), "and")} from their bundled OpenAPI descriptions
(and of the API folders that CONTRACT_API_DIRS names).

Options:
  ${"--host <host>".padEnd(width)}interface to listen on (default 127.0.0.1)
${portLines.join("\n")}
  ${"--only <api>".padEnd(width)}serve only one API: ${listed(apis.map((api) => api.name), "or")}
  ${"--dynamic".padEnd(width)}generate bodies from the schemas instead of the documented examples
  ${"--seed <n>".padEnd(width)}seed for --dynamic, so that runs repeat
  ${"--stateful".padEnd(width)}serve the stateful reference implementation instead of examples
  ${"--faults <file>".padEnd(width)}inject latency and faults by the rules of <file>, logging each on stderr
  ${"".padEnd(width)}(format: @api-contracts/contract-core/faults.schema.json)
  ${"--faults-seed <n>".padEnd(width)}seed of the faults' draws, 0 to ${SEED_MAX} (default: a random one, printed)
  ${"--webhook-secret <secret>".padEnd(width)}sign the webhook calls of jobs started with a webhook (a crawl; the mock
  ${"".padEnd(width)}sends the documented examples); each call's end is logged on stderr
  ${"--request-timeout <ms>".padEnd(width)}time allowed for a whole request, body included (default ${DEFAULT_REQUEST_TIMEOUT}):
  ${"".padEnd(width)}a request still arriving then is answered 408 in the API's shape
  ${"--no-cors".padEnd(width)}send no CORS headers (by default a web app of any origin may call the
  ${"".padEnd(width)}mocks from a browser, and preflights are answered)
  ${"--help".padEnd(width)}show this help

Per request, the header "Prefer: example=<name>" picks a named example and
"Prefer: code=<status>" picks a documented status; "Prefer: latency=<ms>" (0 to 60000)
delays the answer and "Prefer: fault=reset|hang|slow-body" resets the connection,
sends nothing until the client gives up (the request deadline at most), or trickles the body.

A faults file, for example:
  {"rules": [{"name": "checks down", "operation": "checkAccess", "probability": 0.1, "status": 503},
             {"operation": "startCrawl", "probability": 0.05, "fault": "reset"},
             {"latency": {"median": 40, "p99": 400}}]}`;
}

/** Seeds are unsigned 32-bit integers, as the draws' generator takes them. */
const SEED_MAX = 4294967295;

function parsePort(text: string | undefined, flag: string, fallback: number): number {
  if (text === undefined) return fallback;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new Error(`${flag} must be a port number (0-65535), got '${text}'`);
  return port;
}

/** Runs the command; resolves with an exit code once the servers listen (or at once on bad usage). */
export async function main(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  try {
    const apis = apisByPort();
    const options: NonNullable<ParseArgsConfig["options"]> = {
      host: { type: "string", default: "127.0.0.1" },
      only: { type: "string" },
      dynamic: { type: "boolean", default: false },
      seed: { type: "string" },
      stateful: { type: "boolean", default: false },
      faults: { type: "string" },
      "faults-seed": { type: "string" },
      "webhook-secret": { type: "string" },
      "request-timeout": { type: "string" },
      "no-cors": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    };
    for (const api of apis) options[`${api.name}-port`] = { type: "string" };
    const { values } = parseArgs({ args: argv, strict: true, allowPositionals: false, options });
    const text = (name: string) => values[name] as string | undefined;
    if (values.help) {
      out(usage());
      return 0;
    }
    const only = text("only");
    if (only !== undefined && !apis.some((api) => api.name === only)) {
      throw new Error(`--only must be one of ${apis.map((api) => api.name).join(", ")}, got '${only}'`);
    }
    const seed = text("seed");
    if (seed !== undefined && !values.dynamic) throw new Error("--seed only applies with --dynamic");
    const chosen = apis.filter((api) => only === undefined || api.name === only);
    const ports = chosen.map((api) => parsePort(text(`${api.name}-port`), `--${api.name}-port`, api.mockPort));
    const timeout = text("request-timeout");
    if (timeout !== undefined && !(/^\d{1,7}$/.test(timeout) && Number(timeout) > 0)) throw new Error(`--request-timeout must be a whole number of milliseconds from 1 to 9999999, got '${timeout}'`);
    const faultsFile = text("faults");
    const faultsSeed = text("faults-seed");
    if (faultsSeed !== undefined && faultsFile === undefined) throw new Error("--faults-seed only applies with --faults");
    if (faultsFile !== undefined && values.stateful) throw new Error("--faults applies to the mocks, not to --stateful");
    let faults: FaultsOptions | undefined;
    if (faultsFile !== undefined) {
      const rules = loadFaults(faultsFile, chosen.map((api) => api.name));
      const seedIsValid = faultsSeed === undefined || (/^\d{1,10}$/.test(faultsSeed) && Number(faultsSeed) <= SEED_MAX);
      if (!seedIsValid) throw new Error(`--faults-seed must be a whole number from 0 to ${SEED_MAX}, got '${faultsSeed}'`);
      const seed = faultsSeed === undefined ? randomInt(SEED_MAX) : Number(faultsSeed);
      faults = { rules, seed, onFault: (event) => console.error(describeFault(event)) };
      console.error(`faults: ${counted(rules.length, "rule")} from ${faultsFile}, seed ${seed} (--faults-seed ${seed} repeats its draws)`);
    }
    const stack = await startTogether(
      chosen.map((api, i) => ({
        name: api.name,
        start: () =>
          startApiServer({
            api: api.name,
            host: text("host")!,
            port: ports[i]!,
            dynamic: values.dynamic === true,
            stateful: values.stateful === true,
            ...(seed !== undefined ? { seed } : {}),
            ...(faults ? { faults } : {}),
            ...(text("webhook-secret") !== undefined ? { webhookSecret: text("webhook-secret") } : {}),
            ...(timeout !== undefined ? { requestTimeout: Number(timeout) } : {}),
            cors: values["no-cors"] !== true,
            onWebhookReport: (report) => console.error(`${api.name} webhook ${describeDeliveryReport(report)}`),
          }),
      })),
    );
    onStopRequest(() => void stack.close().then(() => process.exit(0)));
    const width = Math.max(...stack.servers.map((server) => server.name.length));
    for (const server of stack.servers) out(`${server.name.padEnd(width)} ${server.url}`);
    return 0;
  } catch (error) {
    console.error(`api-mock: ${(error as Error).message}`);
    if ((error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) console.error(`\n${usage()}`);
    return 2;
  }
}
