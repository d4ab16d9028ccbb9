// Judges request bodies whose fate at the live services is known (each entry names the source that
// decides it) with the validators every tool here uses: what the live service accepts, the contract
// accepts; what it refuses, the contract refuses.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OpenApiValidators, listApis, loadBundle, type FieldError, type RequestPart } from "../src/index.js";
import { specExportDir } from "./fixture.js";

interface LiveRequest {
  operation: string;
  /** The concrete path, when the entry judges path parameters too. */
  path?: string;
  query?: Record<string, unknown>;
  headers?: Record<string, unknown>;
  body?: unknown;
  live: "accepted" | "refused";
  /** repo@commit, file and symbol (or a seed section) that decide the verdict. */
  source: string;
  why: string;
}

/** The folder the spec package exports its judged requests from (`./live-requests/*`). */
const liveRequestsDir = specExportDir("./live-requests/*");
const SOURCE = /^([\w.-]+\/[\w.-]+@[0-9a-f]{7,40} \S+ \S+|seed \S.*)$/;

function entriesOf(api: string): Array<LiveRequest & { file: string }> {
  const dir = path.join(liveRequestsDir, api);
  let files: string[];
  try {
    files = readdirSync(dir).filter((file) => file.endsWith(".json")).sort();
  } catch {
    return [];
  }
  return files.flatMap((file) => (JSON.parse(readFileSync(path.join(dir, file), "utf8")) as LiveRequest[]).map((entry) => ({ ...entry, file })));
}

/** The problems the contract finds in the parts an entry gives (a part it leaves out is not judged). */
function contractProblems(validators: OpenApiValidators, entry: LiveRequest): FieldError[] {
  const operation = validators.listOperations().find((op) => op.operationId === entry.operation);
  if (!operation) throw new Error(`no operation ${entry.operation}`);
  const judged = new Set<RequestPart>(["body", "query"]);
  if (entry.headers) judged.add("header");
  if (entry.path) judged.add("path");
  return validators
    .request(operation.method, operation.path)
    .validate({ path: entry.path ?? operation.path, query: entry.query ?? {}, headers: entry.headers ?? {}, body: entry.body })
    .filter((problem) => judged.has(problem.in));
}

const apis = listApis().map((api) => api.name);
const all = apis.map((api) => ({ api, entries: entriesOf(api) }));

it("the judged requests hold at least 60 bodies across both APIs, every body-taking operation both accepted and refused", () => {
  expect(all.reduce((sum, { entries }) => sum + entries.length, 0)).toBeGreaterThanOrEqual(60);
  for (const { api, entries } of all) {
    const validators = new OpenApiValidators(loadBundle(api));
    const withBody = validators.walkedOperations().filter((op) => op.requestBody).map((op) => op.operationId);
    expect(entries.length, `${api} has no judged requests`).toBeGreaterThan(0);
    for (const operationId of withBody) {
      const verdicts = new Set(entries.filter((entry) => entry.operation === operationId).map((entry) => entry.live));
      expect([...verdicts].sort(), `${api} ${operationId}`).toEqual(["accepted", "refused"]);
    }
  }
});

describe.each(all.filter(({ entries }) => entries.length > 0))("$api: the contract judges requests as the live service does", ({ api, entries }) => {
  const validators = new OpenApiValidators(loadBundle(api));

  it("every entry names its operation, its verdict and the source that decides it", () => {
    for (const entry of entries) {
      expect(["accepted", "refused"], `${entry.file}: ${entry.why}`).toContain(entry.live);
      expect(entry.source, `${entry.file}: ${entry.why}`).toMatch(SOURCE);
      expect(entry.why.length, entry.file).toBeGreaterThan(0);
    }
  });

  it.each(entries.map((entry, index) => [`${entry.file} #${index} ${entry.live}: ${entry.why}`, entry] as const))("%s", (_name, entry) => {
    const problems = contractProblems(validators, entry);
    const shown = problems.map((problem) => `${problem.in} ${problem.path.join(".")}: ${problem.message}`).join("; ");
    if (entry.live === "accepted") expect(problems, shown).toEqual([]);
    else expect(problems.length, `the contract accepts what the live service refuses (${entry.source})`).toBeGreaterThan(0);
  });
});
