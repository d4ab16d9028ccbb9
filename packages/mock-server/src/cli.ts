import { parseArgs } from "node:util";
import { startMockServer, type RunningServer } from "./server.js";
import { services, type Service } from "./spec.js";

export const usage = `Usage: api-mock [options]

Serves mocks of the Web Data and Entitlements APIs from their bundled OpenAPI descriptions.

Options:
  --host <host>               interface to listen on (default 127.0.0.1)
  --webdata-port <port>       port of the Web Data mock (default 4010, 0 picks a free one)
  --entitlements-port <port>  port of the Entitlements mock (default 4011, 0 picks a free one)
  --only <api>                serve only one API: webdata or entitlements
  --dynamic                   generate bodies from the schemas instead of the documented examples
  --seed <n>                  seed for --dynamic, so that runs repeat
  --stateful                  serve the stateful reference implementation instead of examples
  --help                      show this help

Per request, the header "Prefer: example=<name>" picks a named example and
"Prefer: code=<status>" picks a documented status.`;

const defaultPorts: Record<Service, number> = { webdata: 4010, entitlements: 4011 };

function parsePort(text: string | undefined, flag: string, fallback: number): number {
  if (text === undefined) return fallback;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new Error(`${flag} must be a port number (0-65535), got '${text}'`);
  return port;
}

/** Runs the CLI; resolves with an exit code once the servers listen (or at once on bad usage). */
export async function main(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  let servers: RunningServer[] = [];
  try {
    const { values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        host: { type: "string", default: "127.0.0.1" },
        "webdata-port": { type: "string" },
        "entitlements-port": { type: "string" },
        only: { type: "string" },
        dynamic: { type: "boolean", default: false },
        seed: { type: "string" },
        stateful: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
    if (values.help) {
      out(usage);
      return 0;
    }
    if (values.only !== undefined && !services.includes(values.only as Service)) {
      throw new Error(`--only must be one of ${services.join(", ")}, got '${values.only}'`);
    }
    if (values.seed !== undefined && !values.dynamic) throw new Error("--seed only applies with --dynamic");
    const chosen = values.only ? [values.only as Service] : [...services];
    const ports: Record<Service, number> = {
      webdata: parsePort(values["webdata-port"], "--webdata-port", defaultPorts.webdata),
      entitlements: parsePort(values["entitlements-port"], "--entitlements-port", defaultPorts.entitlements),
    };
    const settled = await Promise.allSettled(
      chosen.map((service) =>
        startMockServer({
          service,
          host: values.host,
          port: ports[service],
          dynamic: values.dynamic,
          stateful: values.stateful,
          ...(values.seed !== undefined ? { seed: values.seed } : {}),
        }),
      ),
    );
    servers = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    const failed = settled.find((s) => s.status === "rejected");
    if (failed) throw failed.reason;
    chosen.forEach((service, i) => out(`${service.padEnd(12)} ${servers[i]!.url}`));
    const stop = () => {
      void Promise.all(servers.map((s) => s.close())).then(() => process.exit(0));
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    return 0;
  } catch (error) {
    await Promise.all(servers.map((s) => s.close()));
    console.error(`api-mock: ${(error as Error).message}`);
    if ((error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) console.error(`\n${usage}`);
    return 2;
  }
}
