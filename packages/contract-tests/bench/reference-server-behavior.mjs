// What a first run of the kit costs: `contract-test --level behavior` with every default, against
// this implementation with every default, one run per API. The run is to be green, with no warning,
// within 8 s (its stall probes end when the server answers 408 at its request deadline, which is
// below the kit's --timeout). Prints a Markdown table.
//   npm run bench            (after npm run build)
import { runContractTests } from "../dist/index.js";
import { defaultFixtures, startReferenceServer } from "@api-contracts/reference-server";

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

const RUNS = 3;
console.log(`| API | checks | passed | failed | warnings | skipped | seconds (median of ${RUNS}) |`);
console.log(`|---|---|---|---|---|---|---|`);
for (const service of ["entitlements", "webdata"]) {
  const server = await startReferenceServer({ service });
  const seconds = [];
  let report;
  try {
    for (let i = 0; i < RUNS; i++) {
      const began = performance.now();
      report = await runContractTests({ service, baseUrl: server.url, level: "behavior", fixtures: defaultFixtures });
      seconds.push((performance.now() - began) / 1000);
    }
  } finally {
    await server.close();
  }
  const { passed, failed, warnings = 0, skipped = 0 } = report;
  console.log(`| ${service} | ${passed + failed + warnings + skipped} | ${passed} | ${failed} | ${warnings} | ${skipped} | ${median(seconds).toFixed(1)} |`);
}
