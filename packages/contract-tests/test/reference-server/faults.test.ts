// The contract-test kit, run against deliberately broken variants of this server: each fault
// must fail exactly the checks that guard it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listChecks } from "../../src/index.js";
import { defaultFixtures, startReferenceServer, type Service } from "@api-contracts/reference-server";
import { editJson, jsonOf, startFaultProxy, type Fault } from "./fault-proxy.js";
import { fixturesOnDisk, KIT_RUN_TIMEOUT_MS, KIT_WEBHOOK_SECRET, runCli, KIT_TARGET_LIMITS } from "./helpers.js";

interface FaultCase {
  service: Service;
  fault: string;
  inject: Fault;
  /** Exactly the checks that must fail, as `operation/check`. */
  expected: string[];
  /** What the first failing line must say about the cause. */
  why?: RegExp;
}

const keys = defaultFixtures.api_keys;
let fixturesFile: string;
let removeFixtures: () => void;

beforeAll(() => {
  ({ file: fixturesFile, remove: removeFixtures } = fixturesOnDisk("contract-faults-"));
});
afterAll(() => removeFixtures());

function names(service: Service, pattern: RegExp): string[] {
  return listChecks(service, "behavior")
    .map((check) => `${check.operation}/${check.name}`)
    .filter((name) => pattern.test(name));
}

const isCheck = (p: string) => p === "/v1/balances.check" || p === "/v1/check";

const cases: FaultCase[] = [
  {
    service: "entitlements",
    fault: "wrong type: allowed is a string on the legacy check path",
    inject: { response: (req, res) => void (req.path === "/v1/check" && res.status === 200 && editJson(res, (b) => ({ ...b, allowed: "yes" }))) },
    expected: ["checkAccessLegacy/success"],
    why: /\/allowed must be boolean/,
  },
  {
    service: "entitlements",
    fault: "missing required member: track answers without customer_id",
    inject: { response: (req, res) => void (req.path === "/v1/balances.track" && res.status === 200 && editJson(res, ({ customer_id: _, ...rest }) => rest)) },
    expected: ["trackUsage/success"],
    why: /customer_id/,
  },
  {
    service: "entitlements",
    fault: "undocumented status: finalize answers 418",
    inject: { response: (req, res) => void (req.path === "/v1/balances.finalize" && res.status === 200 && (res.status = 418)) },
    expected: ["finalizeLock/success", "finalizeLock/release-gives-units-back", "finalizeLock/confirm-keeps-units"],
    why: /status 418 is not documented for finalizeLock/,
  },
  {
    service: "entitlements",
    fault: "wrong error body: 401 answers carry the web data error shape",
    inject: { response: (_req, res) => void (res.status === 401 && (res.body = JSON.stringify({ success: false, error: "Unauthorized" }))) },
    expected: names("entitlements", /\/auth-/),
    why: /401 body\//,
  },
  {
    service: "entitlements",
    fault: "auth not enforced: requests without a key are served",
    inject: { request: (req) => void (req.headers.has("authorization") || req.headers.set("authorization", `Bearer ${keys.entitlements}`)) },
    expected: names("entitlements", /\/auth-missing$/),
    why: /expected 401, got 200/,
  },
  {
    service: "entitlements",
    fault: "an unknown feature answers 500 on check and track",
    inject: {
      response: (_req, res) =>
        void (res.status === 404 && jsonOf(res.body).code === "feature_not_found" && ((res.status = 500), (res.body = JSON.stringify({ message: "Internal error", code: "internal_error" })))),
    },
    expected: names("entitlements", /\/unknown-feature$/),
    why: /expected 404, got 500/,
  },
  {
    service: "entitlements",
    fault: "behaviour: an unknown entity is worded as an unknown customer",
    inject: { response: (_req, res) => void (res.status === 404 && jsonOf(res.body).code === "entity_not_found" && editJson(res, (b) => ({ ...b, code: "customer_not_found" }))) },
    expected: names("entitlements", /\/unknown-entity$/),
    why: /expected code "entity_not_found", got "customer_not_found"/,
  },
  {
    service: "entitlements",
    fault: "behaviour: a denied check with send_event still deducts",
    inject: {
      async response(req, res, upstream) {
        const sent = jsonOf(req.body);
        if (!isCheck(req.path) || sent.send_event !== true || jsonOf(res.body).allowed !== false) return;
        await upstream("POST", "/v1/balances.track", req.headers, JSON.stringify({ customer_id: sent.customer_id, feature_id: sent.feature_id, value: 1 }));
      },
    },
    expected: ["checkAccess/send-event-no-deduction-when-denied"],
    why: /changed the balance/,
  },
  {
    service: "entitlements",
    fault: "behaviour: release keeps the held units",
    inject: {
      request(req) {
        const body = jsonOf(req.body);
        if (req.path === "/v1/balances.finalize" && body.action === "release") req.body = JSON.stringify({ ...body, action: "confirm" });
      },
    },
    expected: ["finalizeLock/release-gives-units-back"],
  },
  {
    service: "entitlements",
    fault: "behaviour: preview is sent although access is allowed",
    inject: {
      async response(req, res, upstream) {
        const sent = jsonOf(req.body);
        if (!isCheck(req.path) || sent.with_preview !== true || jsonOf(res.body).allowed !== true) return;
        // A real preview of the same customer keeps the answer valid against the schema.
        const denied = await upstream("POST", req.path, req.headers, JSON.stringify({ customer_id: sent.customer_id, feature_id: sent.feature_id, required_balance: 1e12, with_preview: true }));
        const { preview } = (await denied.json()) as { preview?: unknown };
        editJson(res, (b) => ({ ...b, preview }));
      },
    },
    expected: ["checkAccess/preview-only-when-denied-and-asked"],
    why: /allowed check carries preview|must match "then" schema|body preview must not be sent together/,
  },
  {
    service: "entitlements",
    fault: "behaviour: required_balance defaults to 2",
    inject: {
      response(req, res) {
        if (isCheck(req.path) && res.status === 200 && !("required_balance" in jsonOf(req.body))) editJson(res, (b) => ({ ...b, required_balance: 2 }));
      },
    },
    expected: ["checkAccess/required-balance-default"],
    why: /expected required_balance 1 when omitted, got 2/,
  },
  {
    service: "entitlements",
    fault: "wrong error code: a bad x-api-version is reported as invalid_inputs",
    inject: { response: (_req, res) => void (res.status === 400 && editJson(res, (b) => (b.code === "invalid_api_version" ? { ...b, code: "invalid_inputs" } : b))) },
    expected: names("entitlements", /\/header-invalid-x-api-version$/),
    why: /expected code invalid_api_version, got "invalid_inputs"/,
  },
  {
    service: "webdata",
    fault: "wrong type: remainingTokens is a string",
    inject: {
      response(req, res) {
        if (req.path === "/v2/team/token-usage" && res.status === 200) editJson(res, (b) => ({ ...b, data: { ...(b.data as object), remainingTokens: "plenty" } }));
      },
    },
    expected: ["getTokenUsage/success"],
    why: /\/data\/remainingTokens must be/,
  },
  {
    service: "webdata",
    fault: "missing required member: a monitor without its name",
    inject: {
      response(req, res) {
        if (req.path.startsWith("/v2/monitor/") && res.status === 200) {
          editJson(res, (b) => {
            const { name: _, ...data } = b.data as Record<string, unknown>;
            return { ...b, data };
          });
        }
      },
    },
    expected: ["getMonitor/success"],
    why: /body\/data\/name is required/,
  },
  {
    service: "webdata",
    fault: "undocumented status: starting a crawl answers 201",
    inject: { response: (req, res) => void (req.method === "POST" && req.path === "/v2/crawl" && res.status === 200 && (res.status = 201)) },
    // The webhook stage cannot start its crawls either: its first check says so, the others are skipped.
    expected: ["startCrawl/success", "cancelCrawl/success", "startCrawl/webhook-deliveries"],
    why: /status 201 is not documented for startCrawl/,
  },
  {
    service: "webdata",
    fault: "wrong error body: 400 answers carry the entitlements error shape",
    inject: { response: (_req, res) => void (res.status === 400 && (res.body = JSON.stringify({ message: "bad", code: "invalid_inputs", env: "live" }))) },
    expected: names("webdata", /\/(invalid-body-|malformed-json|id-wrong-format|query-invalid-)/),
    why: /400 body\//,
  },
  {
    service: "webdata",
    fault: "auth not enforced: any scheme is accepted",
    inject: { request: (req) => void (req.headers.get("authorization")?.startsWith("Bearer ") || req.headers.set("authorization", `Bearer ${keys.webdata}`)) },
    expected: names("webdata", /\/auth-(missing|wrong-scheme)$/),
    why: /expected 401, got 200/,
  },
  {
    service: "webdata",
    fault: "auth not enforced: any key is accepted",
    inject: { request: (req) => void (req.headers.get("authorization")?.startsWith("Bearer ") && req.headers.set("authorization", `Bearer ${keys.webdata}`)) },
    expected: names("webdata", /\/auth-unknown-key$/),
    why: /expected 401, got 200/,
  },
  {
    service: "webdata",
    fault: "behaviour: cancel answers a status other than cancelled",
    inject: { response: (req, res) => void (req.method === "DELETE" && res.status === 200 && (res.body = JSON.stringify({ status: "stopped" }))) },
    expected: ["cancelCrawl/success"],
  },
  {
    service: "webdata",
    fault: "behaviour: an unknown crawl gives the live service's 404 text instead of the seed's",
    inject: { response: (req, res) => void (req.method === "DELETE" && res.status === 404 && (res.body = JSON.stringify({ error: "Job not found" }))) },
    expected: ["cancelCrawl/unknown-id"],
    why: /expected error "Crawl job not found\.", got "Job not found"/,
  },
  {
    service: "webdata",
    fault: "behaviour: the interact status filter is ignored",
    inject: { request: (req) => void (req.path === "/v2/interact" && req.query.get("status") === "active" && req.query.delete("status")) },
    expected: ["listInteractSessions/status-filter-active"],
    why: /status=active returned 1 session\(s\) with status "destroyed"/,
  },
  {
    service: "webdata",
    fault: "behaviour: apiKey is present without byApiKey",
    inject: {
      response(req, res) {
        if (req.path !== "/v2/team/credit-usage/historical" || req.query.get("byApiKey") === "true" || res.status !== 200) return;
        editJson(res, (b) => ({ ...b, periods: (b.periods as object[]).map((period) => ({ ...period, apiKey: keys.webdata })) }));
      },
    },
    expected: ["getHistoricalCreditUsage/api-key-only-when-requested"],
    why: /period\(s\) carry apiKey/,
  },
];

async function runThroughProxy(service: Service, inject: Fault) {
  const server = await startReferenceServer({ service, limits: KIT_TARGET_LIMITS, ...(service === "webdata" ? { webhookSecret: KIT_WEBHOOK_SECRET } : {}) });
  const proxy = await startFaultProxy(service, server.url, inject);
  try {
    return await runCli(["--service", service, "--base-url", proxy.url, "--fixtures", fixturesFile, "--level", "behavior", "--webhook-secret", KIT_WEBHOOK_SECRET]);
  } finally {
    await proxy.close();
    await server.close();
  }
}

// Each case has its own server and proxy on port 0, so cases run side by side: a run spends about
// a second waiting for the servers' 408 to its stalled-body probes, which others use meanwhile.
describe.concurrent("the kit fails, naming the check, against deliberately broken servers", () => {
  it("fault proxy: with no fault injected every behaviour check passes (the proxy itself is transparent)", async () => {
    for (const service of ["entitlements", "webdata"] as const) {
      const run = await runThroughProxy(service, {});
      expect(run.failed, run.out.join("\n")).toEqual([]);
      expect(run.code).toBe(0);
    }
  }, 2 * KIT_RUN_TIMEOUT_MS);

  for (const fault of cases) {
    it(`fault (${fault.service}): ${fault.fault} -> fails ${fault.expected.length === 1 ? fault.expected[0] : `${fault.expected.length} checks`}`, async () => {
      expect(fault.expected.length).toBeGreaterThan(0);
      const run = await runThroughProxy(fault.service, fault.inject);
      expect(run.code, run.out.join("\n")).toBe(1);
      expect(run.failed).toEqual(fault.expected);
      expect(run.out.at(-1)).toBe(`${run.passed.length} passed, ${run.failed.length} failed${run.skipped.length > 0 ? `, ${run.skipped.length} skipped` : ""}`);
      if (fault.why) expect(run.out.find((line) => line.startsWith("FAIL "))).toMatch(fault.why);
    }, KIT_RUN_TIMEOUT_MS);
  }
});
