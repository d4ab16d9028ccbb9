import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer } from "@api-contracts/mock-server";
import { listChecks, type Report } from "../src/index.js";
import { shownFailure } from "../src/run.js";
import { redactor } from "@api-contracts/contract-core";
import { forward, passOn, runCli, startFakeTarget, type Answer, type FakeTarget } from "./helpers.js";

const KEY = "fc-Echoed0Secret0Key0123456789abcd";
let dir: string;
let mock: { url: string; close(): Promise<void> };
const targets: FakeTarget[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "contract-hostile-"));
  mock = await startMockServer({ service: "webdata" });
  // The mock compiles a route's validators on its first request (about 300 ms on a busy machine):
  // done here, so that the 300 ms --timeout below measures the target's stall and nothing else.
  const warmUp = await fetch(`${mock.url}/v2/crawl`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ url: "https://example.com" }),
  });
  await warmUp.arrayBuffer();
});
afterAll(async () => {
  await Promise.all(targets.map((target) => target.close()));
  await mock?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function fake(answer: Answer): Promise<FakeTarget> {
  const target = await startFakeTarget(answer);
  targets.push(target);
  return target;
}

/** Writes JSON array items for as long as the client reads them. */
const endlessJson: Answer = (_req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.write('{"data":[');
  const pump = () => {
    while (!res.destroyed && res.write('{"item":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},'));
    if (!res.destroyed) res.once("drain", pump);
  };
  pump();
};

/** Declares a body far above any limit and sends only its first bytes. */
const hugeDeclaredLength: Answer = (_req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": String(50 * 1024 * 1024) });
  res.write('{"data":');
};

/** Answers like the mock for the first `n` requests, then never again. */
const stallAfter =
  (n: number): Answer =>
  (req, res, nth) => {
    if (nth <= n) void passOn(mock.url, req, res);
  };

const readReport = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Report;

/** Answers like the mock to the preflight's requests (without the key, with it, the fixtures' monitor), then as `answer`. */
const afterPreflight =
  (answer: Answer): Answer =>
  (req, res, nth) =>
    nth <= 3 ? passOn(mock.url, req, res) : answer(req, res, nth);

describe("the kit against misbehaving targets: bounded answers", () => {
  it.each([
    ["an endless JSON body", endlessJson],
    ["a declared Content-Length of 50 MB", hugeDeclaredLength],
  ])("%s fails the checks that read it, naming the --max-answer-bytes limit, and the run goes on", async (_label, answer) => {
    const target = await fake(afterPreflight(answer));
    const report = path.join(dir, "bounded.json");
    const run = await runCli(["--service", "webdata", "--base-url", target.url, "--api-key", KEY, "--max-answer-bytes", "65536", "--report", report]);
    expect(run.code, run.err.join("\n")).toBe(1);
    const checks = listChecks("webdata", "schema");
    expect(run.failed.length).toBe(checks.length);
    expect(run.out.find((line) => line.startsWith("FAIL getTokenUsage success"))).toMatch(/longer than 65536 bytes \(the --max-answer-bytes limit\)/);
    const written = readReport(report);
    expect(written.limits.maxAnswerBytes).toBe(65536);
    expect(written.operations.getTokenUsage!.checks[0]!.reason).toMatch(/--max-answer-bytes/);
  });

  it("an endless answer to the first request ends the run before any check, naming the limit (exit 2)", async () => {
    const target = await fake(endlessJson);
    const run = await runCli(["--service", "webdata", "--base-url", target.url, "--api-key", KEY, "--max-answer-bytes", "65536"]);
    expect(run.code).toBe(2);
    expect(run.out).toEqual([]);
    expect(run.err).toEqual([expect.stringMatching(/^contract-test: the target does not answer as the API: the answer to POST \/v2\/crawl is longer than 65536 bytes \(the --max-answer-bytes limit\)/)]);
  });
});

describe("the kit against misbehaving targets: a target that stops answering is unreachable (exit 2)", () => {
  it("a target that sends headers and then stalls is unreachable after --timeout, before any check is reported", async () => {
    const target = await fake((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"data":');
    });
    const run = await runCli(["--service", "webdata", "--base-url", target.url, "--api-key", KEY, "--timeout", "300"]);
    expect(run.code).toBe(2);
    expect(run.err.join("\n")).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+: .*the answer did not end within 300 ms \(--timeout\)/);
    expect(run.out).toEqual([]);
    expect(target.requests).toBe(1);
  });

  it("a target that stops answering mid-run ends the run with exit 2 at the first request it leaves unanswered", async () => {
    const target = await fake(stallAfter(6));
    const run = await runCli(["--service", "webdata", "--base-url", target.url, "--api-key", KEY, "--timeout", "300"]);
    expect(run.code).toBe(2);
    expect(run.err.join("\n")).toMatch(/no answer within 300 ms \(--timeout\)/);
    expect(run.passed.length).toBeGreaterThan(0);
    expect(run.out.some((line) => /passed, \d+ failed$/.test(line))).toBe(false);
    // No further request after the one that went unanswered.
    expect(target.requests).toBe(7);
  });

  it("the overall deadline --max-time ends a run whose target stalls under a long --timeout", async () => {
    const target = await fake(stallAfter(3));
    const run = await runCli(["--service", "webdata", "--base-url", target.url, "--api-key", KEY, "--timeout", "600000", "--max-time", "1500"]);
    expect(run.code).toBe(2);
    expect(run.err.join("\n")).toMatch(/--max-time/);
  });

  it.each([
    ["--timeout", "0"],
    ["--max-time", "soon"],
    ["--max-answer-bytes", "1.5"],
  ])("%s %s is a usage error (exit 2) naming the flag", async (flag, value) => {
    const run = await runCli(["--service", "webdata", "--base-url", mock.url, "--api-key", KEY, flag, value]);
    expect(run.code).toBe(2);
    expect(run.err.join("\n")).toContain(`${flag} must be a whole number of at least 1`);
  });
});

describe("the kit never prints or writes the API key", () => {
  it("a target echoing the key in bodies and headers has it redacted on the terminal and in the report", async () => {
    const target = await fake((req, res, nth) => {
      const key = (req.headers.authorization ?? "").replace(/^Bearer /, "");
      if (nth % 2 === 0) {
        // Lower-cased, as a media type would be: redaction ignores letter case.
        res.writeHead(200, { "content-type": `application/x-${key.toLowerCase()}`, "x-echo": key });
        res.end("{}");
        return;
      }
      res.writeHead(401, { "content-type": "application/json", "x-echo": key });
      res.end(JSON.stringify({ success: false, error: `Unauthorized: ${key} is not a key of this team` }));
    });
    const report = path.join(dir, "echo.json");
    const run = await runCli(["--service", "webdata", "--base-url", target.url, "--api-key", KEY, "--report", report]);
    expect(run.code).toBe(1);
    const everything = [...run.out, ...run.err, readFileSync(report, "utf8")].join("\n");
    expect(everything.toLowerCase()).not.toContain(KEY.toLowerCase());
    expect(everything).toMatch(/Unauthorized: \[redacted\] is not a key/);
    expect(everything).toMatch(/application\/x-\[redacted\]/);
  });

  it("the wrong-scheme check sends a made-up credential, never the real key", async () => {
    // Entitlements refuses another scheme without knowing keys, so the check runs at schema level against its mock.
    const key = "am_sk_Echoed0Secret0Key0123456789";
    const entitlements = await startMockServer({ service: "entitlements" });
    try {
      const target = await fake((req, res) => void passOn(entitlements.url, req, res));
      const run = await runCli(["--service", "entitlements", "--base-url", target.url, "--api-key", key]);
      expect(run.code, run.out.join("\n")).toBe(0);
      expect(run.passed).toContain("checkAccess/auth-wrong-scheme");
      const basic = target.authorizations.filter((value) => value.startsWith("Basic "));
      expect(basic.length).toBeGreaterThan(0);
      for (const value of basic) expect(Buffer.from(value.slice(6), "base64").toString("utf8")).not.toContain(key);
      expect(target.authorizations.filter((value) => value.includes(key) && !value.startsWith("Bearer "))).toEqual([]);
    } finally {
      await entitlements.close();
    }
  });

  it("a base URL with credentials works, and its password is masked on the terminal and in the report", async () => {
    const secret = "url-secret-0123456789";
    const withCredentials = mock.url.replace("http://", `http://tester:${secret}@`);
    const report = path.join(dir, "credentials.json");
    const run = await runCli(["--service", "webdata", "--base-url", withCredentials, "--api-key", KEY, "--report", report]);
    expect(run.failed, run.err.join("\n")).toEqual([]);
    expect(run.code).toBe(0);
    const written = readFileSync(report, "utf8");
    expect([...run.out, ...run.err, written].join("\n")).not.toContain(secret);
    expect(readReport(report).baseUrl).toBe(mock.url.replace("http://", "http://tester:***@"));
  });

  it("an unreachable base URL with credentials is named with its password masked", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const run = await runCli(["--service", "webdata", "--base-url", `http://tester:hidden-pass@127.0.0.1:${port}`, "--api-key", KEY]);
    expect(run.code).toBe(2);
    expect(run.err.join("\n")).toContain(`cannot reach http://tester:***@127.0.0.1:${port}`);
    expect(run.err.join("\n")).not.toContain("hidden-pass");
  });
});

describe("the kit against a target with a contract fault", () => {
  it("a 401 body of the wrong shape fails exactly the schema-level auth checks", async () => {
    const target = await fake(async (req, res) => {
      const answer = await forward(mock.url, req);
      res.writeHead(answer.status, answer.headers);
      res.end(answer.status === 401 ? JSON.stringify({ message: "nope" }) : answer.body);
    });
    const run = await runCli(["--service", "webdata", "--base-url", target.url, "--api-key", KEY]);
    expect(run.code).toBe(1);
    const auth = listChecks("webdata", "schema")
      .map((check) => `${check.operation}/${check.name}`)
      .filter((name) => /\/auth-(missing|wrong-scheme)$/.test(name));
    expect(run.failed).toEqual(auth);
  });
});

describe("a generated failure as reports show it", () => {
  it("has the key redacted from its reduced request as well as from its reason and curl lines", () => {
    const key = "fc-0123456789abcdef0123456789abcdef";
    const shown = shownFailure(
      { reason: `refused ${key}`, reproduce: { seed: 1, request: { path: {}, query: { q: key }, headers: { "x-echo": `Bearer ${key}` }, body: { note: key } }, curl: [`curl -H 'x-echo: ${key}'`] } },
      redactor([key]),
    );
    expect(JSON.stringify(shown)).not.toContain(key);
    expect(shown.reproduce.request.query.q).toBe("[redacted]");
  });
});
