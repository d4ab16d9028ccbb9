#!/usr/bin/env node
// conformance firecrawl --source <checkout> [--record <dir>] [--commit <sha>] [--repository <owner/name>] [--generate <N>] [--report <file>] [--proxy-report <file>]
// conformance autumn --source <autumn checkout> [--record <dir>] [--commit <sha>] [--report <file>] [--schema-only]
import { parseArgs } from "node:util";
import { runAutumn } from "../src/autumn.mjs";
import { runFirecrawl } from "../src/firecrawl.mjs";
import { stopAll, stopOnSignals } from "../src/processes.mjs";

const USAGE = `Usage: conformance firecrawl --source <DIR> [--record <DIR>] [--commit <SHA>] [--repository <OWNER/NAME>]
                             [--generate <N>] [--report <FILE.json>] [--proxy-report <FILE.jsonl>]
       conformance autumn --source <DIR> [--record <DIR>] [--commit <SHA>] [--report <FILE.json>]
                          [--schema-only]

Installs and starts the open-source Firecrawl API server from DIR (a checkout of its repository
with apps/api and apps/nuq-postgres) on Node 22 from npm, with its nuq queue on PostgreSQL and
redis-server on free ports of 127.0.0.1, self-hosted (no database authentication, no outside
service), and a stand-in for its native module (conformance/src/firecrawl-rs). With its nuq and
queue workers beside it, crawls a small static site on 127.0.0.1 with a webhook to a receiver on
127.0.0.1 and keeps every delivery; then stops the workers, sends a fixed list of requests, judges
the answers and deliveries as the replay of the records does, runs contract-test against the
server, drives the official SDK (@mendable/firecrawl-js: a crawl with a few options, its cancel,
the token usage) through contract-proxy --strict in front of it, and stops everything it started.

  --source    the checkout (apps/api is installed with the pnpm its packageManager names, from npm)
  --record    write the exchanges there, one JSON array per operation, and the webhook crawls'
              deliveries in webhook-deliveries.json (keys removed); a scratch folder such as
              /tmp/recorded/<server>, which CONFORMANCE_RECORDED=/tmp/recorded npm test -w
              conformance -- test/recorded.test.mjs replays (by default the replay judges the
              published records in spec/test/recorded/)
  --commit    the checkout's commit, when DIR is not a git work tree
  --repository  the repository the commit was taken from, as the records name it
              (default firecrawl/firecrawl)
  --generate  also run the kit's generated checks, N examples each (seed 20261123)
  --report    where the kit writes its JSON report (default: the run's log folder)
  --proxy-report  where contract-proxy writes its report (default: the run's log folder)

The accepted differences of the release are read from conformance/known-differences/:
firecrawl.json (the kit's) and firecrawl-proxy.json (the proxy's); those of the answers and
deliveries from spec/test/recorded/<server>/known-differences.json (or the --record folder's).

autumn: installs (Bun from npm) and starts Autumn's server from DIR (a checkout of the
useautumn/autumn monorepo; its package.json files are adjusted to what the registry holds) with
PostgreSQL (initdb in a folder of the run), redis-server and a stand-in for its message queue on
free ports of 127.0.0.1, migrates and seeds it with its own scripts and API, sends a fixed list of
check, track and finalize requests, then runs contract-test --service entitlements at schema and
behavior level (--schema-only: schema alone) with the seeded ids as fixtures. Accepted
differences: conformance/known-differences/autumn.json. Also needs PostgreSQL (Debian: apt-get
install -y postgresql); run as root, PostgreSQL runs as the postgres user (runuser).

Both need redis-server and PostgreSQL (Debian: apt-get install -y redis-server postgresql) and
the npm registry.
Exit status: 0 when every answer and delivery agrees with the contract or differs as listed, no
kit check failed (a warning, HTTP hygiene, does not) and the proxy reported no violation that is
not known; 1 otherwise; 2 when set-up fails.`;

async function main(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        source: { type: "string" },
        record: { type: "string" },
        commit: { type: "string" },
        repository: { type: "string" },
        generate: { type: "string" },
        report: { type: "string" },
        "proxy-report": { type: "string" },
        "schema-only": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    console.error(`conformance: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (positionals.length !== 1 || !["firecrawl", "autumn"].includes(positionals[0]) || !values.source) {
    console.error(`conformance: name the server (firecrawl or autumn) and --source\n\n${USAGE}`);
    return 2;
  }
  if (positionals[0] === "autumn" && (values.generate !== undefined || values["proxy-report"] !== undefined || values.repository !== undefined)) {
    console.error(`conformance: --generate, --proxy-report and --repository are for firecrawl\n\n${USAGE}`);
    return 2;
  }
  if (values.generate !== undefined && !/^[1-9]\d*$/.test(values.generate)) {
    console.error(`conformance: --generate must be a whole number of at least 1, got '${values.generate}'`);
    return 2;
  }
  stopOnSignals((line) => console.error(`conformance: ${line}`));
  try {
    if (positionals[0] === "autumn") {
      return await runAutumn({ source: values.source, record: values.record, commit: values.commit, reportFile: values.report, behavior: !values["schema-only"] });
    }
    return await runFirecrawl({
      source: values.source,
      record: values.record,
      commit: values.commit,
      repository: values.repository,
      generate: values.generate && Number(values.generate),
      reportFile: values.report,
      proxyReportFile: values["proxy-report"],
    });
  } catch (error) {
    console.error(`conformance: ${error.message}`);
    await stopAll();
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
