#!/usr/bin/env node
// Serves every API's mock and the reference docs until interrupted (the root `npm start`). Each
// API's default port is the one in contract-core's registry, so a third API gets its flag and its
// variable without a change here.
import { parseArgs } from "node:util";
import { listApis } from "@api-contracts/contract-core";
import { onStopRequest } from "@api-contracts/contract-core/server";
import { startLocalStack } from "@api-contracts/local-stack";

const apis = listApis();
const envName = (name) => `${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_PORT`;
const flags = [
  ["--host H", "the address to bind (variable HOST; default 127.0.0.1)"],
  ...apis.map((api) => [`--${api.name}-port N`, `the ${api.title} mock (variable ${envName(api.name)}; default ${api.mockPort})`]),
  ["--docs-port N", "the reference docs (variable DOCS_PORT; default 4000)"],
  ["--allow-relay-host H", "a host the docs console may relay to besides loopback (repeatable)"],
  ["--help", "print this and exit"],
];
const flagWidth = Math.max(...flags.map(([flag]) => flag.length)) + 2;
const usage = [
  `Usage: npm start -- [--host H] ${apis.map((api) => `[--${api.name}-port ${api.mockPort}]`).join(" ")} [--docs-port 4000] [--allow-relay-host H]... [--help]`,
  "",
  "Serves each API's mock and the reference docs until Ctrl+C, SIGTERM or the end of the npm that started it.",
  ...flags.map(([flag, text]) => `  ${flag.padEnd(flagWidth)}${text}`),
  "A flag wins over its variable; port 0 picks a free port, and the URLs printed say which.",
].join("\n");

const options = {
  help: { type: "boolean", short: "h" },
  host: { type: "string", default: process.env.HOST ?? "127.0.0.1" },
  "docs-port": { type: "string", default: process.env.DOCS_PORT ?? "4000" },
  "allow-relay-host": { type: "string", multiple: true, default: [] },
};
for (const api of apis) options[`${api.name}-port`] = { type: "string", default: process.env[envName(api.name)] ?? String(api.mockPort) };

function usageError(message) {
  console.error(`start: ${message}\n${usage}`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({ options }));
} catch (error) {
  usageError(error.message);
}
if (values.help) {
  console.log(usage);
  process.exit(0);
}

function port(flag) {
  const text = values[flag];
  if (!/^\d+$/.test(text) || Number(text) > 65535) usageError(`--${flag} must be a port number (0-65535), got '${text}'`);
  return Number(text);
}

let stack;
onStopRequest(async () => {
  await stack?.close();
  process.exit(0);
});
try {
  stack = await startLocalStack({
    host: values.host,
    ports: Object.fromEntries(apis.map((api) => [api.name, port(`${api.name}-port`)])),
    docsPort: port("docs-port"),
    allowRelayHosts: values["allow-relay-host"],
  });
} catch (error) {
  console.error(`start: ${error?.message ?? error}`);
  process.exit(1);
}

const titles = new Map(apis.map((api) => [api.name, `${api.title} mock`]));
const width = Math.max(...[...titles.values()].map((title) => title.length), 4) + 2;
for (const { name, url } of stack.servers) console.log(`${(titles.get(name) ?? "Docs").padEnd(width)}${url}`);
console.log("Press Ctrl+C to stop.");
