// Judges requests whose fate at the live services is known (each entry names the source that decides
// it) with the decision every tool here makes: what the live service accepts, the contract accepts;
// what it refuses, the contract refuses, with the live status and code where the entry gives them.
import { describe, expect, it } from "vitest";
import { liveRequests, type LiveRequest } from "@api-contracts/dev-tools/testing";
import { contractOf, listApis, queryString, type ApiContract } from "../src/index.js";

const SOURCE = /^([\w.-]+\/[\w.-]+@[0-9a-f]{7,40} \S+ \S+|seed \S.*)$/;

/** The entry as a whole request, with a key the decision takes and a JSON body when it has one. */
function decisionOn(contract: ApiContract, entry: LiveRequest) {
  const operation = contract.validators.listOperations().find((op) => op.operationId === entry.operation);
  if (!operation) throw new Error(`no operation ${entry.operation}`);
  const target = `${entry.path ?? operation.path}${queryString(entry.query ?? {})}`;
  const headers = { authorization: `Bearer ${contract.api.key.prefix}live-requests`, ...(entry.body === undefined ? {} : { "content-type": "application/json" }), ...entry.headers };
  const decision = contract.decide({ method: operation.method, target, headers, ...(entry.body === undefined ? {} : { body: JSON.stringify(entry.body) }) });
  return { decision, reply: contract.refusalOf(decision) };
}

const apis = listApis().map((api) => api.name);
const all = apis.map((api) => ({ api, entries: liveRequests(api) }));

it("the judged requests hold at least 60 across both APIs, every body-taking operation both accepted and refused", () => {
  expect(all.reduce((sum, { entries }) => sum + entries.length, 0)).toBeGreaterThanOrEqual(60);
  for (const { api, entries } of all) {
    const { validators } = contractOf(api);
    const withBody = validators.walkedOperations().filter((op) => op.requestBody).map((op) => op.operationId);
    expect(entries.length, `${api} has no judged requests`).toBeGreaterThan(0);
    for (const operationId of withBody) {
      const verdicts = new Set(entries.filter((entry) => entry.operation === operationId).map((entry) => entry.live));
      expect([...verdicts].sort(), `${api} ${operationId}`).toEqual(["accepted", "refused"]);
    }
  }
});

describe.each(all.filter(({ entries }) => entries.length > 0))("$api: the contract decides requests as the live service does", ({ api, entries }) => {
  const contract = contractOf(api);

  it("every entry names its operation, its verdict and the source that decides it", () => {
    for (const entry of entries) {
      expect(["accepted", "refused"], `${entry.file}: ${entry.why}`).toContain(entry.live);
      expect(entry.source, `${entry.file}: ${entry.why}`).toMatch(SOURCE);
      expect(entry.why.length, entry.file).toBeGreaterThan(0);
      if (entry.live === "accepted") expect(entry.status ?? entry.code, `${entry.file}: an accepted entry has no refusal status or code`).toBeUndefined();
    }
  });

  it.each(entries.map((entry, index) => [`${entry.file} #${index} ${entry.live}${entry.status ? ` ${entry.status}` : ""}: ${entry.why}`, entry] as const))("%s", (_name, entry) => {
    const { decision, reply } = decisionOn(contract, entry);
    const shown = decision.problems.map((problem) => `${problem.in}${problem.pointer} ${problem.message}`).join("; ");
    if (entry.live === "accepted") {
      expect(decision.refusal, shown).toBeUndefined();
      return;
    }
    expect(decision.refusal, `the contract accepts what the live service refuses (${entry.source})`).toBeDefined();
    if (entry.status !== undefined) expect(reply!.status, shown).toBe(entry.status);
    if (entry.code !== undefined) expect(contract.codeOf(reply!.body), shown).toBe(entry.code);
  });
});
