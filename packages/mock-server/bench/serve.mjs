// Serves both mocks in one process, as the benchmark measures them (start-up included).
//   node bench/serve.mjs <webdata-port> <entitlements-port>
import { startMockServer } from "../dist/index.js";

const [webdataPort, entitlementsPort] = process.argv.slice(2).map(Number);
const servers = await Promise.all([
  startMockServer({ service: "webdata", port: webdataPort }),
  startMockServer({ service: "entitlements", port: entitlementsPort }),
]);
for (const server of servers) console.log(server.url);
process.once("SIGTERM", () => void Promise.all(servers.map((s) => s.close())).then(() => process.exit(0)));
