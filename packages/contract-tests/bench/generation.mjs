// What generated requests reach, next to json-schema-faker on the same schemas, and what a generated
// run costs against the mock (the reference server's bench measures the same against it). Prints
// Markdown tables.
//   npm run bench            (after npm run build)
import fc from "fast-check";
import jsf from "json-schema-faker";
import { ApiContract, OpenApiValidators, getApi, loadBundle, resolvePointer } from "@api-contracts/contract-core";
import { seededRandom } from "@api-contracts/contract-core/server";
import { startMockServer } from "@api-contracts/mock-server";
import { readFileSync } from "node:fs";
import { measureGeneratedRun } from "../dist/index.js";
import { validRequestArbitrary } from "../dist/generate/arbitraries.js";
import { viewOf, withBranch } from "../dist/generate/schema-view.js";

const SAMPLES = 100;
const SEED = 20261123;
const fixturesOfTests = JSON.parse(readFileSync(new URL("../test/fixtures.json", import.meta.url), "utf8"));

/** Optional member paths and enum values a body schema offers, through items and branches. */
function universe(document, pointer) {
  const optional = new Set();
  const enums = new Map();
  const walk = (view, at, depth) => {
    if (depth > 6) return;
    if (view.enum) enums.set(at, new Set([...(enums.get(at) ?? []), ...view.enum.map((v) => JSON.stringify(v))]));
    for (const branch of view.branches ?? []) walk(withBranch(document, view, branch), at, depth + 1);
    for (const [key, pointers] of view.properties) {
      if (!view.required.has(key)) optional.add(`${at}.${key}`);
      walk(viewOf(document, pointers), `${at}.${key}`, depth + 1);
    }
    if (view.items.length > 0) walk(viewOf(document, view.items), `${at}[]`, depth + 1);
  };
  walk(viewOf(document, [pointer]), "$", 0);
  return { optional, enums };
}

/** What a set of bodies reaches of a universe. */
function reach(bodies, { optional, enums }, valid) {
  const seen = new Set();
  const values = new Map();
  let longest = 0;
  let fractions = 0;
  let numbers = 0;
  const walk = (value, at) => {
    seen.add(at);
    if (enums.has(at)) values.set(at, new Set([...(values.get(at) ?? []), JSON.stringify(value)]));
    if (typeof value === "string") longest = Math.max(longest, value.length);
    if (typeof value === "number") {
      numbers++;
      if (!Number.isInteger(value)) fractions++;
    }
    if (Array.isArray(value)) value.forEach((item) => walk(item, `${at}[]`));
    else if (value && typeof value === "object") for (const [key, member] of Object.entries(value)) walk(member, `${at}.${key}`);
  };
  for (const body of bodies) walk(body, "$");
  const enumTotal = [...enums.values()].reduce((n, set) => n + set.size, 0);
  const enumSeen = [...enums.keys()].reduce((n, at) => n + [...(values.get(at) ?? [])].filter((v) => enums.get(at).has(v)).length, 0);
  const percent = (a, b) => (b === 0 ? "-" : `${Math.round((100 * a) / b)}% (${a}/${b})`);
  return {
    optional: percent([...optional].filter((p) => seen.has(p)).length, optional.size),
    enums: percent(enumSeen, enumTotal),
    valid: percent(bodies.filter(valid).length, bodies.length),
    longest,
    fractions: percent(fractions, numbers),
  };
}

console.log(`| operation | generator | optional members reached | enum values reached | bodies the bundle accepts | longest string | fractional numbers |`);
console.log(`|---|---|---|---|---|---|---|`);
for (const service of ["entitlements", "webdata"]) {
  const document = loadBundle(service);
  const validators = new OpenApiValidators(document);
  const ctx = { contract: new ApiContract(getApi(service), validators), document, validators, now: Date.now, hints: () => undefined };
  for (const operation of validators.walkedOperations()) {
    const media = operation.requestBody?.media.find((m) => m.mediaType === "application/json");
    if (!media || /Legacy$/.test(operation.operationId)) continue;
    const space = universe(document, media.schema);
    const valid = (body) => validators.schema(media.schema)(body);
    const ours = fc.sample(validRequestArbitrary(ctx, operation), { numRuns: SAMPLES, seed: SEED }).map((r) => r.body);
    jsf.option({ random: seededRandom(SEED), alwaysFakeOptionals: false, useDefaultValue: false });
    const root = { components: document.components, ...resolvePointer(document, media.schema) };
    const faked = [];
    for (let i = 0; i < SAMPLES; i++) faked.push(jsf.generate(root));
    for (const [name, bodies] of [["fast-check (this kit)", ours], ["json-schema-faker 0.5", faked]]) {
      const r = reach(bodies, space, valid);
      console.log(`| ${operation.operationId} | ${name} | ${r.optional} | ${r.enums} | ${r.valid} | ${r.longest} | ${r.fractions} |`);
    }
  }
}

console.log("");
console.log(`| target | API | level | examples per check | generated checks | requests sent | time | requests per second |`);
console.log(`|---|---|---|---|---|---|---|---|`);
for (const service of ["entitlements", "webdata"]) {
  const server = await startMockServer({ service });
  const cost = await measureGeneratedRun({ service, baseUrl: server.url, level: "schema", fixtures: fixturesOfTests, generate: 100, seed: SEED });
  console.log(`| mock | ${service} | schema | 100 | ${cost.generatedChecks} | ${cost.requests} | ${cost.seconds.toFixed(1)} s | ${Math.round(cost.requests / cost.seconds)} |`);
  await server.close();
}
