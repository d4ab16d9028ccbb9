// The contract-test kit through the proxy against a faulty server (the reference server behind a
// small relay that breaks some of its answers): every answer the kit's judgement fails, the proxy
// reports in the same words, and the proxy reports no answer the kit passed.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { summarizeAnswer } from "@api-contracts/contract-core";
import { Contract, loadBundledSpec, runContractTests, type Report } from "@api-contracts/contract-tests";
import { defaultFixtures, startReferenceServer } from "@api-contracts/reference-server";
import { startContractProxy } from "../src/index.js";

interface Sent {
  method: string;
  path: string;
  status: number;
  contentType: string | null;
  bodyText: string;
}

/** How the relay breaks an answer of the reference server (status, content type, body), by request. */
type Breaker = (method: string, path: string, answer: Sent) => Sent;

const withoutMember = (answer: Sent, member: string): Sent => {
  const { [member]: _dropped, ...rest } = JSON.parse(answer.bodyText) as Record<string, unknown>;
  return { ...answer, bodyText: JSON.stringify(rest) };
};

const breakEntitlements: Breaker = (method, path, answer) => {
  if (path === "/v1/balances.check" && answer.status === 200) return withoutMember(answer, "customer_id");
  if (path === "/v1/balances.finalize") return { ...answer, status: 418 };
  if (path === "/v1/check" && answer.status === 200) return { ...answer, contentType: "text/plain" };
  if (path === "/v1/balances.track" && answer.status === 400) return { ...answer, bodyText: "{not json" };
  return answer;
};

/** The reference server behind a relay that breaks answers as `breaker` says and keeps every answer it sent. */
async function faultyServer(upstream: string, breaker: Breaker) {
  const sent: Sent[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !["host", "connection", "content-length", "transfer-encoding"].includes(name)).map(([name, value]) => [name, String(value)]));
      const body = chunks.length > 0 && req.method !== "GET" && req.method !== "HEAD" ? Buffer.concat(chunks) : undefined;
      try {
        const answer = await fetch(`${upstream}${req.url}`, { method: req.method!, headers, ...(body ? { body } : {}) });
        const path = req.url!.split("?")[0]!;
        const broken = breaker(req.method!, path, { method: req.method!, path, status: answer.status, contentType: answer.headers.get("content-type"), bodyText: await answer.text() });
        sent.push(broken);
        res.writeHead(broken.status, broken.contentType ? { "content-type": broken.contentType } : {}).end(broken.bodyText);
      } catch {
        res.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  };
}

describe("the kit through the proxy against a faulty entitlements server", () => {
  let reference: { url: string; close(): Promise<void> };
  let faulty: Awaited<ReturnType<typeof faultyServer>>;
  let report: Report;
  let violations: Array<{ method: string; path: string; status: number; summary: string }>;

  beforeAll(async () => {
    reference = await startReferenceServer({ service: "entitlements" });
    faulty = await faultyServer(reference.url, breakEntitlements);
    const proxy = await startContractProxy({ service: "entitlements", upstream: faulty.url });
    try {
      report = await runContractTests({ service: "entitlements", baseUrl: proxy.url, fixtures: defaultFixtures });
    } finally {
      await proxy.close();
    }
    violations = proxy.violations.filter((line) => line.direction === "response").map((line) => ({ method: line.method, path: line.path, status: line.status, summary: summarizeAnswer(line.status, line.errors) }));
  }, 120_000);
  afterAll(async () => {
    await faulty?.close();
    await reference?.close();
  });

  const key = (one: { method: string; path: string; status: number; summary: string }) => `${one.method} ${one.path} ${one.status}: ${one.summary}`;

  it("every answer the kit's judgement fails, the proxy reports with the same words, and nothing else", () => {
    const kit = new Contract(loadBundledSpec("entitlements"));
    const failed = faulty.sent.flatMap((answer) => {
      const verdict = kit.judge(answer);
      return verdict.ok ? [] : [{ method: answer.method, path: answer.path, status: answer.status, summary: verdict.reason }];
    });
    expect(failed.length).toBeGreaterThan(3);
    expect(violations.map(key).sort()).toEqual(failed.map(key).sort());
  });

  it("each fault is failed by the kit's run, in the words the proxy reports it", () => {
    const reasons = Object.values(report.operations).flatMap((group) => group.checks.filter((check) => !check.passed && !check.skipped).map((check) => check.reason));
    for (const expected of [/^200 body\/customer_id is required$/, /^status 418 is not documented for finalizeLock; documented: /, /^header\/content-type is 'text\/plain', which a 200 answer to checkAccessLegacy does not take/, /^400 body is not valid JSON$/]) {
      const said = violations.find((violation) => expected.test(violation.summary));
      expect(said, String(expected)).toBeDefined();
      expect(reasons.some((reason) => reason.includes(said!.summary)), `${said!.summary} in\n${reasons.join("\n")}`).toBe(true);
    }
  });
});
