// Serves both mocks in one process, as the benchmark measures them (start-up included).
//   node bench/serve.mjs <webdata-port> <entitlements-port> [<faults.json>]
// With a faults file, its rules are injected (seed 1) and each fired rule is logged on stderr, as
// `api-mock --faults` does.
import { loadFaults } from "@api-contracts/contract-core";
import { describeFault } from "@api-contracts/contract-core/server";
import { startMockServer } from "../dist/index.js";

const [webdataPort, entitlementsPort] = process.argv.slice(2).map(Number);
const faultsFile = process.argv[4];
const faults = faultsFile && {
  rules: loadFaults(faultsFile, ["webdata", "entitlements"]),
  seed: 1,
  onFault: (event) => console.error(describeFault(event)),
};
const servers = await Promise.all([
  startMockServer({ service: "webdata", port: webdataPort, ...(faults ? { faults } : {}) }),
  startMockServer({ service: "entitlements", port: entitlementsPort, ...(faults ? { faults } : {}) }),
]);
for (const server of servers) console.log(server.url);
process.once("SIGTERM", () => void Promise.all(servers.map((s) => s.close())).then(() => process.exit(0)));
