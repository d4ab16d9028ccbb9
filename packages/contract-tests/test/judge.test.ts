import { describe, expect, it } from "vitest";
import { Contract, loadBundledSpec, type Exchange } from "../src/judge.js";

const webdata = new Contract(loadBundledSpec("webdata"));
const entitlements = new Contract(loadBundledSpec("entitlements"));

function example(contract: Contract, name: string): Record<string, unknown> {
  const value = contract.at(`/components/examples/${name}/value`);
  if (typeof value !== "object" || value === null) throw new Error(`no example ${name}`);
  return structuredClone(value) as Record<string, unknown>;
}

function exchange(over: Partial<Exchange> & { body?: unknown }): Exchange {
  const { body, ...rest } = over;
  return {
    method: "GET",
    path: "/v2/team/token-usage",
    status: 200,
    contentType: "application/json; charset=utf-8",
    bodyText: JSON.stringify(body ?? example(webdata, "getTokenUsage-current-period")),
    ...rest,
  };
}

describe("judge", () => {
  it("judge: a documented example answer matches the contract", () => {
    const verdict = webdata.judge(exchange({}));
    expect(verdict).toMatchObject({ ok: true });
  });

  it("judge: an undocumented status is a failure that names the status", () => {
    const verdict = webdata.judge(exchange({ status: 418 }));
    expect(verdict.ok).toBe(false);
    expect(verdict.reason).toMatch(/status 418 is not documented for getTokenUsage/);
  });

  it("judge: an undocumented content type is a failure", () => {
    const verdict = webdata.judge(exchange({ contentType: "text/plain" }));
    expect(verdict.ok).toBe(false);
    expect(verdict.reason).toMatch(/header\/content-type is 'text\/plain', which a 200 answer to getTokenUsage does not take/);
  });

  it("judge: a body that is not JSON under a JSON content type is a failure", () => {
    const verdict = webdata.judge({ ...exchange({}), bodyText: "{oops" });
    expect(verdict).toMatchObject({ ok: false, reason: expect.stringMatching(/not valid JSON/) });
  });

  it("judge: a missing required member is named", () => {
    const body = example(webdata, "getTokenUsage-current-period");
    delete (body.data as Record<string, unknown>).planTokens;
    const verdict = webdata.judge(exchange({ body }));
    expect(verdict.ok).toBe(false);
    expect(verdict.reason).toMatch(/planTokens/);
  });

  it("judge: a member of the wrong type is named with its path", () => {
    const body = example(webdata, "getTokenUsage-current-period");
    (body.data as Record<string, unknown>).remainingTokens = "many";
    const verdict = webdata.judge(exchange({ body }));
    expect(verdict.ok).toBe(false);
    expect(verdict.reason).toMatch(/\/data\/remainingTokens/);
  });

  it("judge: an error answer is judged against that status's schema", () => {
    const ok = entitlements.judge({
      method: "POST",
      path: "/v1/balances.check",
      status: 401,
      contentType: "application/json",
      bodyText: JSON.stringify({ message: "Secret key not found in Authorization header", code: "no_secret_key", env: "sandbox" }),
    });
    expect(ok.ok).toBe(true);
    const wrong = entitlements.judge({ method: "POST", path: "/v1/balances.check", status: 401, contentType: "application/json", bodyText: JSON.stringify({ error: "Unauthorized" }) });
    expect(wrong.ok).toBe(false);
  });

  it("judge: requests are matched to operations by method and path template", () => {
    expect(webdata.findOperation("DELETE", "/v2/crawl/0f6c2b8e-1d3a-4b5c-9e7f-a1b2c3d4e5f6")?.operationId).toBe("cancelCrawl");
    expect(webdata.findOperation("POST", "/v2/crawl")?.operationId).toBe("startCrawl");
    expect(entitlements.findOperation("POST", "/v1/balancesXcheck")).toBeUndefined();
    expect(webdata.judge(exchange({ method: "PUT" })).reason).toMatch(/is not an operation of the contract/);
  });
});
