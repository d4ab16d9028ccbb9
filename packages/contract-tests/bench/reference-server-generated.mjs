// What a generated contract-test run (`contract-test --generate 100`, behaviour level) costs against
// this implementation, one run per API with a fixed seed. Prints a Markdown table.
//   npm run bench            (after npm run build)
import { measureGeneratedRun } from "../dist/index.js";
import { defaultFixtures, startReferenceServer } from "@api-contracts/reference-server";

const SEED = 20261123;
console.log(`| target | API | level | examples per check | generated checks | requests sent | time | requests per second |`);
console.log(`|---|---|---|---|---|---|---|---|`);
for (const service of ["entitlements", "webdata"]) {
  const server = await startReferenceServer({ service });
  const cost = await measureGeneratedRun({ service, baseUrl: server.url, level: "behavior", fixtures: defaultFixtures, generate: 100, seed: SEED });
  console.log(`| reference server | ${service} | behavior | 100 | ${cost.generatedChecks} | ${cost.requests} | ${cost.seconds.toFixed(1)} s | ${Math.round(cost.requests / cost.seconds)} |`);
  await server.close();
}
