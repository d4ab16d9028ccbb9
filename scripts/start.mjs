#!/usr/bin/env node
// Serves every API's mock and the reference docs until interrupted (the root `npm start`).
//   node scripts/start.mjs [--host H] [--<api>-port N ...] [--docs-port 4000]
// Ports may also come from <API>_PORT (WEBDATA_PORT, ENTITLEMENTS_PORT, ...) and DOCS_PORT; 0 picks
// a free port. Each API's default port is the one in the registry.
import { parseArgs } from "node:util";
import { listApis } from "@api-contracts/contract-core";
import { startLocalStack } from "@api-contracts/local-stack";

const apis = listApis();
const envName = (name) => `${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_PORT`;
const options = {
  host: { type: "string", default: process.env.HOST ?? "127.0.0.1" },
  "docs-port": { type: "string", default: process.env.DOCS_PORT ?? "4000" },
};
for (const api of apis) options[`${api.name}-port`] = { type: "string", default: process.env[envName(api.name)] ?? String(api.mockPort) };
const { values } = parseArgs({ options });

function port(flag) {
  const text = values[flag];
  if (!/^\d+$/.test(text) || Number(text) > 65535) {
    console.error(`start: --${flag} must be a port number (0-65535), got '${text}'`);
    process.exit(2);
  }
  return Number(text);
}

let stack;
try {
  stack = await startLocalStack({
    host: values.host,
    ports: Object.fromEntries(apis.map((api) => [api.name, port(`${api.name}-port`)])),
    docsPort: port("docs-port"),
  });
} catch (error) {
  console.error(`start: ${error?.message ?? error}`);
  process.exit(1);
}

const titles = new Map(apis.map((api) => [api.name, `${api.title} mock`]));
const width = Math.max(...[...titles.values()].map((title) => title.length), 4) + 2;
for (const { name, url } of stack.servers) console.log(`${(titles.get(name) ?? "Docs").padEnd(width)}${url}`);
console.log("Press Ctrl+C to stop.");
const stop = async () => {
  await stack.close();
  process.exit(0);
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
