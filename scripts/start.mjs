#!/usr/bin/env node
// Serves both API mocks and the reference docs until interrupted (the root `npm start`).
//   node scripts/start.mjs [--host H] [--webdata-port 4010] [--entitlements-port 4011] [--docs-port 4000]
// Ports may also come from WEBDATA_PORT, ENTITLEMENTS_PORT and DOCS_PORT; 0 picks a free port.
import { parseArgs } from "node:util";
import { startMockServer } from "@api-contracts/mock-server";
import { startDocsServer } from "@api-contracts/docs/server";

const { values } = parseArgs({
  options: {
    host: { type: "string", default: process.env.HOST ?? "127.0.0.1" },
    "webdata-port": { type: "string", default: process.env.WEBDATA_PORT ?? "4010" },
    "entitlements-port": { type: "string", default: process.env.ENTITLEMENTS_PORT ?? "4011" },
    "docs-port": { type: "string", default: process.env.DOCS_PORT ?? "4000" },
  },
});

function port(flag) {
  const text = values[flag];
  if (!/^\d+$/.test(text) || Number(text) > 65535) {
    console.error(`start: --${flag} must be a port number (0-65535), got '${text}'`);
    process.exit(2);
  }
  return Number(text);
}

const host = values.host;
const started = await Promise.allSettled([
  startMockServer({ service: "webdata", host, port: port("webdata-port") }),
  startMockServer({ service: "entitlements", host, port: port("entitlements-port") }),
  startDocsServer({ host, port: port("docs-port") }),
]);
const running = started.filter((s) => s.status === "fulfilled").map((s) => s.value);

async function stop(code) {
  await Promise.allSettled(running.map((s) => s.close()));
  process.exit(code);
}

const failed = started.find((s) => s.status === "rejected");
if (failed) {
  console.error(`start: ${failed.reason?.message ?? failed.reason}`);
  await stop(1);
}

const [webdata, entitlements, docs] = running;
console.log(`Web Data mock      ${webdata.url}`);
console.log(`Entitlements mock  ${entitlements.url}`);
console.log(`Docs               ${docs.url}`);
console.log("Press Ctrl+C to stop.");
process.once("SIGINT", () => stop(0));
process.once("SIGTERM", () => stop(0));
