#!/usr/bin/env node
// Requests per second and p99 latency of POST /v1/balances.check, on the reference server (with a
// few live locks, and with --locks live locks on the very balance checked) and on the Prism mock,
// measured in the same run in alternating rounds (medians of the rounds).
//   npm run bench -w packages/reference-server [-- --duration 5 --rounds 3 --connections 10 --locks 100000]
import autocannon from "autocannon";
import { benchOptions, median } from "./support.mjs";
import { defaultFixtures, startReferenceServer } from "../dist/index.js";

const { duration, rounds, connections, locks: lockCount } = benchOptions({ locks: "100000" });

const { customer_id, metered_feature_id } = defaultFixtures.entitlements;
const body = JSON.stringify({ customer_id, feature_id: metered_feature_id, required_balance: 1 });
const headers = { authorization: `Bearer ${defaultFixtures.api_keys.entitlements}`, "content-type": "application/json" };

/** Places `count` live locks (one unit each, expiring in 23 hours) on the balance the bench checks. */
async function placeLocks(url, count) {
  const expires = Date.now() + 23 * 3_600_000;
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const lock = { customer_id, feature_id: metered_feature_id, required_balance: 1, lock: { lock_id: `bench-${i}`, enabled: true, expires_at: expires } };
      const response = await fetch(`${url}/v1/balances.check`, { method: "POST", headers, body: JSON.stringify(lock) });
      const answer = await response.json();
      if (!answer.allowed) throw new Error(`lock ${i} was not placed: ${JSON.stringify(answer).slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: 20 }, worker));
}

/** The default world with a grant large enough for every lock and every benchmarked check. */
function roomyFixtures() {
  const fixtures = structuredClone(defaultFixtures);
  for (const product of fixtures.world.entitlements.products) {
    for (const item of product.items) if (item.feature_id === metered_feature_id && typeof item.included_usage === "number") item.included_usage = 1e12;
  }
  return fixtures;
}

async function target(name, start) {
  try {
    return { name, server: await start() };
  } catch (error) {
    console.error(`${name}: not available (${error.message}); skipped`);
    return null;
  }
}

const targets = (
  await Promise.all([
    target("reference server", () => startReferenceServer({ service: "entitlements" })),
    target(`reference server, ${lockCount} live locks`, async () => {
      const server = await startReferenceServer({ service: "entitlements", fixtures: roomyFixtures(), limits: { maxLocks: Math.max(lockCount, 1) } });
      await placeLocks(server.url, lockCount);
      return server;
    }),
    target("Prism mock", async () => {
      const { startMockServer } = await import("@api-contracts/mock-server");
      return startMockServer({ service: "entitlements" });
    }),
  ])
).filter(Boolean);

function once(url) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${url}/v1/balances.check`,
        method: "POST",
        headers,
        body,
        connections,
        duration,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

const samples = new Map(targets.map((t) => [t.name, { rps: [], p99: [], non2xx: 0 }]));
try {
  for (const t of targets) await once(t.server.url).catch(() => undefined); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const t of round % 2 ? [...targets].reverse() : targets) {
      const result = await once(t.server.url);
      const s = samples.get(t.name);
      s.rps.push(result.requests.average);
      s.p99.push(result.latency.p99);
      s.non2xx += result.non2xx + result.errors;
    }
  }
} finally {
  await Promise.all(targets.map((t) => t.server.close()));
}

console.log(`\nPOST /v1/balances.check, ${connections} connections, ${rounds} rounds of ${duration} s each (medians), Node ${process.version}\n`);
console.log("| server | requests/s | p99 latency (ms) | non-2xx or errors |");
console.log("|---|---:|---:|---:|");
for (const [name, s] of samples) console.log(`| ${name} | ${Math.round(median(s.rps))} | ${median(s.p99)} | ${s.non2xx} |`);
const [ref, locked, prism] = [samples.get("reference server"), samples.get(`reference server, ${lockCount} live locks`), samples.get("Prism mock")];
if (ref && prism) console.log(`\nreference / Prism requests per second: ${(median(ref.rps) / median(prism.rps)).toFixed(1)}x`);
if (ref && locked) console.log(`with ${lockCount} live locks / with none: ${(median(locked.rps) / median(ref.rps)).toFixed(2)}x`);
