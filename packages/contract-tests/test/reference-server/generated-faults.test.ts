// Generated requests against deliberately broken variants of this server. Each fault fires only for
// inputs that no hand-picked check sends (a long id, a fractional amount, a nested `properties`
// object, three includePaths, a `sitemap` mode, a short idempotency key, ...): the hand-picked checks all pass, and
// `--generate 30` finds the fault and reports a reduced request.
import { beforeAll, describe, expect, it } from "vitest";
import { runContractTests, type CheckResult, type Report, type Service } from "../../src/index.js";
import { defaultFixtures, startReferenceServer } from "@api-contracts/reference-server";
import { jsonOf, startFaultProxy, type Fault, type ProxiedRequest, type ProxiedResponse } from "./fault-proxy.js";
import { KIT_RUN_TIMEOUT_MS, KIT_TARGET_LIMITS, KIT_WEBHOOK_SECRET } from "./helpers.js";

/** Fixed, so that the test is deterministic; any seed finds these faults (see the kit's README). */
const SEED = 20261123;
// With this seed every fault is found within its check's first 21 examples. A run of N examples
// makes the same first values whatever N is (fast-check draws them in order from the seed), so 30
// proves what 100 did, with a margin, at under a third of the requests.
const EXAMPLES = 30;

type Body = Record<string, unknown>;

interface GeneratedFault {
  service: Service;
  fault: string;
  inject: Fault;
  /** The generated check that must find it, as `operation/check`. */
  check: string;
  /** What one of the check's failures says. */
  why: RegExp;
  /** What the reduced request of that failure must look like: the trigger, and little else. */
  reduced: (request: { path: Record<string, string>; query: Record<string, string>; headers: Record<string, string>; body?: unknown }) => boolean;
}

const INJECTED = "injected fault";

/** A legacy version number of major 1 as Autumn reads one (`1`, `1.2`, `+01.40`, `1.4 beta`). */
const LEGACY_ONE = /^\+?0*1(?![0-9])/;

/** Answers 500 in place of the target when `when` holds for the request. */
function serverError(path: string, when: (body: Body, request: ProxiedRequest) => boolean): Fault {
  return {
    response(request, response) {
      if (request.path !== path || !when(jsonOf(request.body), request)) return;
      response.status = 500;
      response.headers.set("content-type", "application/json");
      response.body = JSON.stringify({ message: INJECTED, code: "internal_error", error: INJECTED });
    },
  };
}

function answer(response: ProxiedResponse, status: number, body: unknown): void {
  response.status = status;
  response.headers.set("content-type", "application/json");
  response.body = JSON.stringify(body);
}

const bodyOf = (request: { body?: unknown }) => (request.body ?? {}) as Body;
const isObject = (value: unknown): value is Body => typeof value === "object" && value !== null && !Array.isArray(value);

/** Ids of crawls started with a `limit`; cancelling one of them "loses" it. */
const limitedCrawls = new Set<string>();

const faults: GeneratedFault[] = [
  {
    service: "entitlements",
    fault: "a customer id longer than 64 characters breaks the check",
    inject: serverError("/v1/balances.check", (b) => typeof b.customer_id === "string" && b.customer_id.length > 64),
    check: "checkAccess/generated-valid",
    why: /a valid request got 500/,
    reduced: (r) => String(bodyOf(r).customer_id).length === 65,
  },
  {
    service: "entitlements",
    fault: "a fractional value breaks tracking",
    inject: serverError("/v1/balances.track", (b) => typeof b.value === "number" && !Number.isInteger(b.value)),
    check: "trackUsage/generated-valid",
    why: /a valid request got 500/,
    reduced: (r) => !Number.isInteger(bodyOf(r).value) && Object.keys(bodyOf(r)).length <= 3,
  },
  {
    service: "entitlements",
    fault: "a nested object inside properties breaks the legacy check",
    inject: serverError("/v1/check", (b) => isObject(b.properties) && Object.values(b.properties).some((v) => typeof v === "object" && v !== null)),
    check: "checkAccessLegacy/generated-valid",
    why: /a valid request got 500/,
    reduced: (r) => isObject(bodyOf(r).properties) && Object.keys(bodyOf(r).properties as Body).length === 1,
  },
  {
    service: "entitlements",
    fault: "skip_event breaks legacy tracking",
    inject: serverError("/v1/track", (b) => b.skip_event !== undefined),
    check: "trackUsageLegacy/generated-valid",
    why: /a valid request got 500/,
    reduced: (r) => typeof bodyOf(r).skip_event === "boolean",
  },
  {
    service: "entitlements",
    fault: "the overage behaviour 'overflow' of a lock breaks the check",
    inject: serverError("/v1/balances.check", (b) => isObject(b.lock) && b.lock.overage_behavior === "overflow"),
    check: "checkAccess/generated-valid",
    why: /a valid request got 500/,
    reduced: (r) => (bodyOf(r).lock as Body | undefined)?.overage_behavior === "overflow",
  },
  {
    service: "entitlements",
    fault: "a legacy API version number of major 1 is refused",
    inject: {
      response(request, response) {
        const version = request.headers.get("x-api-version");
        if (request.path === "/v1/balances.track" && version !== null && LEGACY_ONE.test(version)) answer(response, 400, { message: `${INJECTED}: unknown version`, code: "invalid_api_version", env: "sandbox" });
      },
    },
    check: "trackUsage/generated-valid",
    why: /refused as invalid \(400\).*injected fault/,
    reduced: (r) => LEGACY_ONE.test(r.headers["x-api-version"] ?? ""),
  },
  {
    service: "entitlements",
    fault: "finalize breaks when properties has two members",
    inject: serverError("/v1/balances.finalize", (b) => isObject(b.properties) && Object.keys(b.properties).length >= 2),
    check: "finalizeLock/generated-valid",
    why: /a valid request got 500/,
    reduced: (r) => Object.keys(bodyOf(r).properties as Body).length === 2,
  },
  {
    service: "webdata",
    fault: "three includePaths break starting a crawl",
    inject: serverError("/v2/crawl", (b, request) => request.method === "POST" && Array.isArray(b.includePaths) && b.includePaths.length >= 3),
    check: "startCrawl/generated-valid",
    why: /a valid request got 500/,
    reduced: (r) => (bodyOf(r).includePaths as unknown[]).length === 3,
  },
  {
    service: "webdata",
    fault: "the sitemap mode 'only' answers an id that is not a string",
    inject: {
      response(request, response) {
        if (request.method === "POST" && request.path === "/v2/crawl" && jsonOf(request.body).sitemap === "only" && response.status === 200) answer(response, 200, { ...jsonOf(response.body), id: 42 });
      },
    },
    check: "startCrawl/generated-valid",
    why: /200 body\/id must be string/,
    reduced: (r) => bodyOf(r).sitemap === "only",
  },
  {
    service: "webdata",
    fault: "a screenshot format object with a quality breaks starting a crawl",
    inject: serverError("/v2/crawl", (b) => {
      const formats = isObject(b.scrapeOptions) ? b.scrapeOptions.formats : undefined;
      return Array.isArray(formats) && formats.some((f) => isObject(f) && f.quality !== undefined);
    }),
    check: "startCrawl/generated-valid",
    why: /a valid request got 500/,
    reduced: (r) => {
      const formats = (bodyOf(r).scrapeOptions as Body).formats as unknown[];
      return formats.length === 1;
    },
  },
  {
    service: "webdata",
    fault: "listing sessions in a state other than active is refused as invalid",
    inject: {
      response(request, response) {
        const status = request.query.get("status");
        if (request.path === "/v2/interact" && status && status !== "active") answer(response, 400, { success: false, error: `${INJECTED}: Bad Request` });
      },
    },
    check: "listInteractSessions/generated-valid",
    // Refused with a body that is not even the documented one: either verdict finds it.
    why: /refused as invalid \(400\)|400 body\//,
    reduced: (r) => r.query.status !== undefined && r.query.status !== "active",
  },
  {
    service: "webdata",
    fault: "a crawl started with a limit cannot be cancelled: it is not found",
    inject: {
      response(request, response) {
        if (request.method === "POST" && request.path === "/v2/crawl" && jsonOf(request.body).limit !== undefined && response.status === 200) limitedCrawls.add(String(jsonOf(response.body).id));
        const id = /^\/v2\/crawl\/([^/]+)$/.exec(request.path)?.[1];
        if (request.method === "DELETE" && id && limitedCrawls.has(id)) answer(response, 404, { success: false, error: "Crawl job not found." });
      },
    },
    check: "startCrawl/generated-link-cancelCrawl",
    why: /the value startCrawl's answer links to names nothing \(404\)/,
    reduced: (r) => /^[0-9a-f-]{36}$/.test(r.path.id ?? ""),
  },
  {
    service: "webdata",
    fault: "outside the valid space: a short idempotency key that is not a UUID is ignored instead of refused",
    inject: {
      request(request) {
        // Longer ones (the hand-picked check's `not-a-valid-value`) are still refused.
        const key = request.headers.get("x-idempotency-key");
        if (key !== null && key.length > 0 && key.length < 8) request.headers.delete("x-idempotency-key");
      },
    },
    check: "startCrawl/generated-invalid",
    // The decision's refusal of the key: 409, as the facts refuse a bad key early (before the body,
    // so a reduced request without one gets the server's 400 for the body once the key is gone).
    why: /expected 409, got (200|400) -- the request breaks one rule: header\/x-idempotency-key must match pattern/,
    reduced: (r) => (r.headers["x-idempotency-key"] ?? "").length < 8 && Object.keys(bodyOf(r)).length <= 1,
  },
];

function handPicked(report: Report): CheckResult[] {
  return Object.values(report.operations).flatMap((group) => group.checks.filter((check) => !check.check.startsWith("generated-")));
}

// What is made once per process and API, while the kit has no request in flight, is made here
// before the runs are watched (fast-check's table of every character for a URL arbitrary, about
// 0.7 s; each API's validators and generators), so that what is measured below is the kit's own pace.
beforeAll(async () => {
  for (const service of ["entitlements", "webdata"] as const) {
    const server = await startReferenceServer({ service, limits: KIT_TARGET_LIMITS });
    await runContractTests({ service, baseUrl: server.url, fixtures: defaultFixtures, level: "behavior", generate: 1, seed: SEED }).finally(() => server.close());
  }
}, KIT_RUN_TIMEOUT_MS);

// Each fault has its own server and proxy on port 0, so faults run side by side (see faults.test.ts),
// two at a time (vitest.config.ts, maxConcurrency): more share one heap, and its collections hold
// the event loop for longer than the servers' deadlines on a loaded machine.
describe.concurrent.each(["entitlements", "webdata"] as const)("%s: generated requests find faults the hand-picked checks miss", (service) => {
  it.each(faults.filter((f) => f.service === service).map((f) => [f.fault, f] as const))("%s", async (_name, fault) => {
    // A fresh server each time: generated requests spend the balances the behaviour checks read.
    const server = await startReferenceServer({ service, limits: KIT_TARGET_LIMITS, ...(service === "webdata" ? { webhookSecret: KIT_WEBHOOK_SECRET } : {}) });
    const proxy = await startFaultProxy(service, server.url, fault.inject);
    // The kit, the proxy and the server share this event loop: a stretch of the kit's work longer
    // than the servers' 1 s deadlines has them answer 408 (or reset) a request already sent on a
    // connection they accepted before it (Node times a new connection from its accept). Every hand-
    // picked check passing below is what shows it did not happen; how long the kit holds the loop
    // depends on what else the machine runs, so it is not timed here.
    try {
      const report = await runContractTests({ service, baseUrl: proxy.url, fixtures: defaultFixtures, level: "behavior", generate: EXAMPLES, seed: SEED, webhookSecret: KIT_WEBHOOK_SECRET });
      const picked = handPicked(report);
      expect(picked.length).toBeGreaterThan(10);
      expect(picked.filter((check) => !check.passed).map((check) => `${check.operation}/${check.check}: ${check.reason}`)).toEqual([]);

      const [operation, name] = fault.check.split("/");
      const generated = report.operations[operation!]!.checks.find((check) => check.check === name)!;
      expect(generated.passed, generated.reason).toBe(false);
      const failure = generated.failures?.find((f) => fault.why.test(f.reason));
      expect(failure, generated.failures?.map((f) => f.reason).join("\n")).toBeDefined();
      expect(failure!.reproduce.seed).toBe(SEED);
      expect(fault.reduced(failure!.reproduce.request), JSON.stringify(failure!.reproduce.request)).toBe(true);
      const curl = failure!.reproduce.curl.join("\n");
      expect(curl).toContain('"Authorization: Bearer $API_KEY"');
      expect(curl).not.toContain(defaultFixtures.api_keys[service]);
    } finally {
      await proxy.close();
      await server.close();
    }
  }, KIT_RUN_TIMEOUT_MS);
});
