import { randomUUID } from "node:crypto";
import { createWebdataClient } from "@api-contracts/webdata-client";
import type { Contract } from "../judge.js";
import type { WebdataFixtures } from "../fixtures.js";
import { badParameterCheck, handCheck, preferStatus, refusalCheck, statusCheck, unknownIdCheck, successCheck } from "./common.js";
import { fail, pass, requireAnswer, type Check, type CheckContext, type KitApi } from "./types.js";
import { webhookChecks } from "../webhooks/stage.js";

/** Ids used at schema level when no fixtures are given: a spec-faithful mock accepts any id. */
const PLACEHOLDER: WebdataFixtures = {
  monitor_id: "7f3c9a52-4d1e-4b8a-9c2f-1e5d6a7b8c90",
  crawl_url: "https://example.com",
};

/** The seed's answer for cancelling a crawl that does not exist. */
const CRAWL_NOT_FOUND = "Crawl job not found.";

function webdataIds(ctx: Pick<CheckContext, "fixtures"> | undefined): WebdataFixtures {
  return ctx?.fixtures?.webdata ?? PLACEHOLDER;
}

type Body = Record<string, unknown>;

/** Checks that an id that is not a UUID gets the API's refusal, when the contract declares the parameter a UUID. */
function wrongFormatIdCheck(contract: Contract, operation: string, param: string): Check[] {
  const schema = contract.parameter(operation, "path", param);
  if (!schema || contract.accepts(schema, "not-a-uuid")) return [];
  return [refusalCheck(operation, "id-wrong-format", "schema", `${param} "not-a-uuid", which is not a UUID, gets the API's refusal with the documented body`, () => ({ path: { [param]: "not-a-uuid" } }))];
}

async function startCrawl(ctx: CheckContext, step: string): Promise<string> {
  const body = requireAnswer(await ctx.caller.call("startCrawl", { body: { url: webdataIds(ctx).crawl_url } }), 200, step);
  if (typeof body.id !== "string") throw new Error(`${step}: the answer has no id`);
  return body.id;
}

function periodsOf(body: Body): Body[] {
  return Array.isArray(body.periods) ? (body.periods as Body[]) : [];
}

/** Every check of the Web Data API, in the order they run. */
function webdataChecks(contract: Contract): Check[] {
  const known = new Set(contract.listOperations().map((op) => op.operationId));
  const checks: Check[] = [];
  const has = (operation: string) => known.has(operation);

  if (has("startCrawl")) checks.push(successCheck("startCrawl", "starting a crawl of a URL answers as documented", (ctx) => ({ body: { url: webdataIds(ctx).crawl_url } })));

  if (has("cancelCrawl")) {
    checks.push(
      handCheck("cancelCrawl", "success", "schema", "cancelling a crawl that was just started answers as documented", async (ctx) => {
        const id = await startCrawl(ctx, "starting the crawl to cancel");
        const result = await ctx.caller.call("cancelCrawl", { path: { id } });
        const body = requireAnswer(result, 200, "cancel");
        if (ctx.level === "behavior" && body.status !== "cancelled") return fail(`expected { status: "cancelled" }, got ${JSON.stringify(body)}`);
        return pass(result.verdict.reason);
      }),
      ...wrongFormatIdCheck(contract, "cancelCrawl", "id"),
      unknownIdCheck("cancelCrawl", "unknown-id", "cancelling a crawl id the server does not know", () => ({ path: { id: randomUUID() } }), { member: "error", value: CRAWL_NOT_FOUND }),
    );
  }

  for (const operation of ["listInteractSessions", "listBrowserSessions"].filter(has)) {
    checks.push(
      successCheck(operation, "listing sessions answers as documented", () => ({})),
      successCheck(operation, "listing active sessions answers as documented", () => ({ query: { status: "active" } }), "success-status-active"),
      ...badParameterCheck(contract, operation, "query", "status", "not-a-status"),
    );
  }
  if (has("listInteractSessions")) {
    checks.push(
      handCheck("listInteractSessions", "status-filter-active", "behavior", "status=active returns only active sessions", async (ctx) => {
        const body = requireAnswer(await ctx.caller.call("listInteractSessions", { query: { status: "active" } }), 200, "list with status=active");
        const sessions = Array.isArray(body.sessions) ? (body.sessions as Body[]) : [];
        const other = sessions.filter((session) => session.status !== "active");
        if (other.length) return fail(`status=active returned ${other.length} session(s) with status ${JSON.stringify(other[0]?.status)}`);
        return pass(`${sessions.length} session(s), all active`);
      }),
    );
  }

  if (has("getMonitor")) {
    checks.push(
      handCheck("getMonitor", "success", "schema", "reading a monitor answers as documented (the fixture monitor at behavior level)", async (ctx) => {
        const monitorId = webdataIds(ctx).monitor_id;
        const result = await ctx.caller.call("getMonitor", { path: { monitorId } });
        const body = requireAnswer(result, 200, "get monitor");
        const data = body.data as Body | undefined;
        if (ctx.level === "behavior" && data?.id !== monitorId) return fail(`asked for monitor ${monitorId}, got ${JSON.stringify(data?.id)}`);
        return pass(result.verdict.reason);
      }),
      ...wrongFormatIdCheck(contract, "getMonitor", "monitorId"),
      statusCheck("getMonitor", "unknown-id", "schema", 404, "a monitor id the server does not know gives 404 with the documented body", () => ({
        path: { monitorId: randomUUID() },
        headers: preferStatus(404),
      })),
    );
  }

  if (has("getTokenUsage")) checks.push(successCheck("getTokenUsage", "reading token usage answers as documented", () => ({})));

  if (has("getHistoricalCreditUsage")) {
    checks.push(
      successCheck("getHistoricalCreditUsage", "reading historical credit usage answers as documented", () => ({})),
      successCheck("getHistoricalCreditUsage", "reading historical credit usage by key answers as documented", () => ({ query: { byApiKey: true } }), "success-by-api-key"),
      ...badParameterCheck(contract, "getHistoricalCreditUsage", "query", "byApiKey", "not-a-boolean"),
      handCheck("getHistoricalCreditUsage", "api-key-only-when-requested", "behavior", "periods carry apiKey only with byApiKey=true", async (ctx) => {
        for (const query of [undefined, { byApiKey: false }]) {
          const step = query ? "byApiKey=false" : "no byApiKey";
          const body = requireAnswer(await ctx.caller.call("getHistoricalCreditUsage", { query }), 200, step);
          const keyed = periodsOf(body).filter((period) => "apiKey" in period);
          if (keyed.length) return fail(`${step}: ${keyed.length} period(s) carry apiKey`);
        }
        const body = requireAnswer(await ctx.caller.call("getHistoricalCreditUsage", { query: { byApiKey: true } }), 200, "byApiKey=true");
        const periods = periodsOf(body);
        if (periods.length === 0) return fail("byApiKey=true returned no periods, so the breakdown cannot be shown");
        const missing = periods.filter((period) => typeof period.apiKey !== "string");
        if (missing.length) return fail(`byApiKey=true: ${missing.length} of ${periods.length} period(s) lack apiKey`);
        return pass(`apiKey absent without byApiKey, present on all ${periods.length} period(s) with it`);
      }),
    );
  }

  // Crawls with a webhook to the kit's receiver: a small limit keeps a real crawl short.
  if (has("startCrawl")) checks.push(...webhookChecks(contract, "startCrawl", (ctx) => ({ url: webdataIds(ctx).crawl_url, limit: 2 })));

  return checks;
}

/** The kit's entry for the Web Data API: its client, its checks, and what its fixtures name. */
export const webdata: KitApi = {
  name: "webdata",
  client: createWebdataClient,
  checks: webdataChecks,
  hints(fixtures) {
    const ids = webdataIds({ fixtures });
    return { monitorId: [ids.monitor_id], url: [ids.crawl_url] };
  },
  async preflight(ctx, operations) {
    if (!operations.has("getMonitor")) return undefined;
    const monitorId = webdataIds(ctx).monitor_id;
    const result = await ctx.caller.call("getMonitor", { path: { monitorId } });
    // Only the API's own answer that there is no such monitor: a route the target lacks is the checks' to report.
    if (result.exchange.status !== 404 || !result.verdict.ok) return undefined;
    const from = ctx.fixtures?.webdata ? "in the fixtures" : "the kit's placeholder: no --fixtures given";
    return `the target holds no monitor ${JSON.stringify(monitorId)} (monitor_id, ${from}): pass --fixtures with ids it holds (contract-test init --service webdata writes a file to fill in)`;
  },
};
