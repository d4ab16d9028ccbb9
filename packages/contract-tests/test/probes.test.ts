// The HTTP probes: raw requests fetch will not send. Each fault of an HTTP edge must fail exactly
// the probes that guard it; a correct edge and the mocks pass.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, STATUS_CODES, type RequestListener } from "node:http";
import { createServer as createTcpServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractOf, type Problem } from "@api-contracts/contract-core";
import { answerParserErrors, createEdgeServer, listen, parserProblem, rawHttpAnswer } from "@api-contracts/contract-core/server";
import { startMockServer } from "@api-contracts/mock-server";
import { listChecks, type Report } from "../src/index.js";
import { PROBES } from "../src/probes/checks.js";
import { rawBytes, reproduction, type Piece } from "../src/probes/wire.js";
import { KEYS, passOn, runCli } from "./helpers.js";

const KEY = "fc-0123456789abcdef0123456789abcdef";
/** The edges under test give up on a request after this long; the kit waits longer. */
const REQUEST_DEADLINE_MS = 800;
const KIT_TIMEOUT_MS = "3000";
const BODY_LIMIT = 1024 * 1024;

interface EdgeFaults {
  /** Parser refusals get node's own answer: a bare 400, 431 or 408 with no body. */
  bareParserErrors?: boolean;
  /** Parser refusals answered as Bun does: 505 for a broken request line, 431 for huge headers, else a bare 400. */
  bunParserErrors?: boolean;
  /** Parser refusals answered 500 in the API's error shape. */
  serverErrors?: boolean;
  /** The process goes away on the first header value holding a control byte. */
  diesOnControlByte?: boolean;
  /** After refusing the first header value holding a control byte, nothing is answered any more (connections are still taken). */
  hangsAfterControlByte?: boolean;
  /** A declared body over the limit cuts the connection instead of answering 413. */
  cutOversized?: boolean;
  /** No request deadline: a stalled body is waited for forever. */
  noDeadline?: boolean;
  /** Refusals carry a body that is not the API's error shape. */
  wrongShape?: boolean;
  /** node's lenient parser (insecureHTTPParser): Content-Length with Transfer-Encoding is served and the connection kept. */
  lenientParser?: boolean;
}

type Service = "entitlements" | "webdata";

const bare = (status: number) => `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`;

/** An HTTP edge in front of a mock, correct unless told which fault to have. */
async function startEdge(service: Service, upstream: string, faults: EdgeFaults = {}) {
  const errors = contractOf(service);
  const word = (problem: Problem) => {
    const reply = errors.reply(problem);
    return faults.wrongShape ? { status: reply.status, body: { detail: "refused" } } : reply;
  };
  const handler: RequestListener = (req, res) => {
    if (hanging) return;
    if (Number(req.headers["content-length"] ?? 0) > BODY_LIMIT) {
      if (faults.cutOversized) return void req.socket.destroy();
      const reply = word({ kind: "too-large", limit: BODY_LIMIT });
      res.writeHead(reply.status, { "content-type": "application/json", connection: "close" });
      return void res.end(JSON.stringify(reply.body));
    }
    passOn(upstream, req, res).catch(() => res.destroy());
  };
  const deadline = faults.noDeadline ? 0 : REQUEST_DEADLINE_MS;
  const custom = faults.bunParserErrors || faults.serverErrors || faults.diesOnControlByte || faults.hangsAfterControlByte;
  let hanging = false;
  const server = faults.lenientParser
    ? createServer({ insecureHTTPParser: true, requestTimeout: deadline, headersTimeout: deadline, connectionsCheckingInterval: 100 }, handler)
    : createEdgeServer({ requestTimeoutMs: deadline, headersTimeoutMs: deadline }, handler, faults.bareParserErrors || custom ? undefined : word);
  if (faults.lenientParser) answerParserErrors(server, word);
  if (custom) {
    server.on("clientError", (error: Error & { code?: string; rawPacket?: Buffer }, socket: Socket) => {
      if (hanging) return;
      if (faults.hangsAfterControlByte && error.code === "HPE_INVALID_HEADER_TOKEN") {
        hanging = true;
        return void socket.end(rawHttpAnswer(errors.reply(parserProblem(error))));
      }
      if (faults.diesOnControlByte && error.code === "HPE_INVALID_HEADER_TOKEN") {
        server.close();
        server.closeAllConnections();
        return void socket.destroy();
      }
      const timedOut = error.code === "ERR_HTTP_REQUEST_TIMEOUT";
      if (faults.serverErrors) return void socket.end(rawHttpAnswer(errors.reply(timedOut ? { kind: "timeout" } : { kind: "internal" })));
      const requestLine = error.rawPacket?.toString("latin1").split("\r\n")[0] ?? "";
      if (error.code === "HPE_HEADER_OVERFLOW") return void socket.end(bare(431));
      if (/ HTTP\/1\.1 \S/.test(requestLine)) return void socket.end(bare(505));
      socket.end(timedOut ? bare(408) : bare(400));
    });
  }
  const { url } = await listen(server, 0, "127.0.0.1");
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function probeNames(service: Service, pattern: RegExp = /./): string[] {
  return listChecks(service, "http")
    .map((check) => `${check.operation}/${check.name}`)
    .filter((name) => pattern.test(name));
}

const runProbes = (url: string, service: Service, extra: string[] = []) =>
  runCli(["--service", service, "--base-url", url, "--api-key", KEYS[service], "--level", "http", "--timeout", KIT_TIMEOUT_MS, ...extra]);

const mocks = new Map<Service, { url: string; close(): Promise<void> }>();
beforeAll(async () => {
  for (const service of ["entitlements", "webdata"] as const) mocks.set(service, await startMockServer({ service, requestTimeout: REQUEST_DEADLINE_MS }));
});
afterAll(async () => {
  for (const mock of mocks.values()) await mock.close();
});

describe("HTTP probes against correct servers", () => {
  it.each(["entitlements", "webdata"] as const)("the %s mock passes every probe, and --level http needs no fixtures", async (service) => {
    const run = await runProbes(mocks.get(service)!.url, service);
    expect(run.failed, run.out.join("\n")).toEqual([]);
    expect(run.passed).toEqual(probeNames(service));
    expect(run.code).toBe(0);
  });

  it.each(["entitlements", "webdata"] as const)("a correct edge in front of the %s mock passes every probe", async (service) => {
    const edge = await startEdge(service, mocks.get(service)!.url);
    try {
      const run = await runProbes(edge.url, service);
      expect(run.failed, run.out.join("\n")).toEqual([]);
    } finally {
      await edge.close();
    }
  });

  it("probes apply where the contract documents their refusal: body probes only to operations with a body, 413 only where documented", () => {
    expect(probeNames("webdata", /http-body-over-limit|http-stalled-body|http-framing-conflict/)).toEqual([
      "startCrawl/http-framing-conflict",
      "startCrawl/http-body-over-limit",
      "startCrawl/http-stalled-body",
    ]);
    expect(probeNames("webdata", /cancelCrawl/)).toEqual(["cancelCrawl/http-control-byte", "cancelCrawl/http-request-line", "cancelCrawl/http-header-overflow"]);
    expect(listChecks("webdata", "behavior").filter((check) => check.level === "http")).toHaveLength(probeNames("webdata").length);
    expect(listChecks("webdata", "schema").filter((check) => check.level === "http")).toEqual([]);
  });

  it("the README's tables and --help describe every probe, and the README's rule for silence and a cut connection is the kit's", async () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const word = (severity: string) => (severity === "failure" ? "fails" : "warns");
    for (const probe of PROBES) {
      const rows = readme.split("\n").filter((line) => line.startsWith(`| \`${probe.name}\` |`));
      expect(rows, probe.name).toHaveLength(2);
      const [, , , , silent, cut] = rows[1]!.split("|").map((cell) => cell.trim());
      expect(silent, probe.name).toMatch(new RegExp(`^${word(probe.whenSilent.severity)}`));
      expect(cut, probe.name).toMatch(new RegExp(`^${word(probe.whenCut.severity)}`));
    }
    const help = (await runCli(["--help"])).out.join("\n");
    expect(help).toMatch(/http: only the HTTP probes/);
    expect(help).toMatch(/--fail-on +failure \(default\)/);
  });

  it("refuses --generate with --level http", async () => {
    const run = await runProbes(mocks.get("webdata")!.url, "webdata", ["--generate", "5"]);
    expect(run.code).toBe(2);
    expect(run.err.join("\n")).toMatch(/generate applies to the schema and behavior levels/);
  });
});

describe("HTTP probes against faulty edges (webdata): failures harm clients, warnings are hygiene", () => {
  const all = probeNames("webdata");
  const parserProbes = all.filter((name) => /http-(control-byte|request-line|framing-conflict|header-overflow)$/.test(name));
  interface EdgeCase {
    fault: string;
    faults: EdgeFaults;
    failed?: string[];
    warned?: string[];
    /** What the first failing, else the first warning, line says. */
    why: RegExp;
    /** Checks not run: the target stopped answering. */
    skipped?: string[];
    args?: string[];
  }
  const cases: EdgeCase[] = [
    {
      fault: "node's bare 400, 431 and 408 from the parser",
      faults: { bareParserErrors: true },
      warned: all.filter((name) => !name.endsWith("http-body-over-limit")),
      why: /header\/content-type is missing, which a 400 answer/,
    },
    {
      fault: "Bun's 505 for a broken request line and 431 for huge headers",
      faults: { bunParserErrors: true },
      warned: all.filter((name) => !name.endsWith("http-body-over-limit")),
      why: /header\/content-type is missing, which a 400 answer/,
    },
    { fault: "a request deadline longer than --timeout", faults: { noDeadline: true }, warned: ["startCrawl/http-stalled-body"], why: /no 408 within 1500 ms \(--timeout\)/, args: ["--timeout", "1500"] },
    { fault: "refusals in the wrong shape", faults: { wrongShape: true }, warned: all, why: /\b4\d\d body\// },
    { fault: "a connection cut on an oversized Content-Length", faults: { cutOversized: true }, failed: ["startCrawl/http-body-over-limit"], why: /never reads the 413 \(EPIPE or ECONNRESET\)/ },
    { fault: "parser refusals answered 500", faults: { serverErrors: true }, failed: parserProbes, why: /500 to a malformed request/ },
    { fault: "a lenient parser that serves Content-Length with Transfer-Encoding and keeps the connection", faults: { lenientParser: true }, failed: ["startCrawl/http-framing-conflict"], why: /served the next bytes on it as a request: request smuggling \(RFC 9112, section 6\.1\)/ },
    { fault: "a server that dies on a control byte", faults: { diesOnControlByte: true }, failed: ["startCrawl/http-control-byte"], skipped: all.slice(1), why: /the target stopped answering after this probe: a new connection then failed \(ECONNREFUSED\)/ },
    {
      fault: "a server that hangs after a control byte, still taking connections",
      faults: { hangsAfterControlByte: true },
      // Each complete request after it goes unanswered; the body probe, whose silence alone would only warn, finds the target answers nothing at all.
      failed: ["startCrawl/http-request-line", "startCrawl/http-framing-conflict", "startCrawl/http-header-overflow", "startCrawl/http-body-over-limit"],
      skipped: all.slice(5),
      why: /no 400 within 500 ms \(--timeout\): the request was complete, yet unanswered/,
      args: ["--timeout", "500"],
    },
  ];
  for (const { fault, faults, failed = [], warned = [], why, skipped = [], args = [] } of cases) {
    const verdict = failed.length > 0 ? `fails ${failed.length === 1 ? failed[0] : `${failed.length} probes`}` : `warns on ${warned.length === 1 ? warned[0] : `${warned.length} probes`}, exit 0`;
    it(`${fault}: ${verdict}, each with a reproduction that hides the key`, async () => {
      const edge = await startEdge("webdata", mocks.get("webdata")!.url, faults);
      try {
        const run = await runProbes(edge.url, "webdata", args);
        expect(run.failed, run.out.join("\n")).toEqual(failed);
        expect(run.warned, run.out.join("\n")).toEqual(warned);
        expect(run.skipped).toEqual(skipped);
        expect(run.code).toBe(failed.length > 0 ? 1 : 0);
        const reported = run.out.filter((line) => /^(FAIL|WARN) /.test(line));
        expect(reported.find((line) => line.startsWith(failed.length > 0 ? "FAIL " : "WARN "))).toMatch(why);
        for (const line of reported) {
          expect(line).toMatch(/\n {5}reproduce: \(printf '.*' "\$API_KEY".*; sleep \d+\) \| nc 127\.0\.0\.1 \d+$/);
          expect(line).not.toContain(KEY);
        }
        if (warned.length > 0) expect(run.out.at(-1)).toBe(`${run.passed.length} passed, ${failed.length} failed, ${warned.length} warning${warned.length === 1 ? "" : "s"}`);
      } finally {
        await edge.close();
      }
    });
  }

  it("--fail-on warning (or CONTRACT_FAIL_ON=warning) makes warnings fail the run; they are still reported as warnings", async () => {
    const edge = await startEdge("webdata", mocks.get("webdata")!.url, { bareParserErrors: true });
    try {
      const strict = await runProbes(edge.url, "webdata", ["--fail-on", "warning"]);
      expect(strict.warned).toHaveLength(probeNames("webdata").length - 1);
      expect(strict.failed).toEqual([]);
      expect(strict.code).toBe(1);
      expect(strict.out).toContain(`${strict.warned.length} warnings fail this run (--fail-on warning)`);
      const byVariable = await runCli(["--service", "webdata", "--base-url", edge.url, "--api-key", KEY, "--level", "http", "--timeout", KIT_TIMEOUT_MS], { CONTRACT_FAIL_ON: "warning" });
      expect(byVariable.code).toBe(1);
      const bad = await runProbes(edge.url, "webdata", ["--fail-on", "never"]);
      expect(bad.code).toBe(2);
      expect(bad.err.join("\n")).toMatch(/--fail-on must be one of failure, warning/);
    } finally {
      await edge.close();
    }
  });

  it("a known warning is known; JUnit passes warnings with the warning on record, and fails them under --fail-on warning", async () => {
    const edge = await startEdge("webdata", mocks.get("webdata")!.url, { bareParserErrors: true });
    const dir = mkdtempSync(path.join(tmpdir(), "probe-warnings-"));
    try {
      const known = path.join(dir, "known.json");
      writeFileSync(known, JSON.stringify([{ operation: "getMonitor", check: "http-control-byte", reason: "header/content-type is missing, which a 400 answer", why: "our framework answers its parser's refusals" }]));
      const junit = path.join(dir, "junit.xml");
      const report = path.join(dir, "report.json");
      const run = await runProbes(edge.url, "webdata", ["--known-differences", known, "--junit", junit, "--report", report]);
      expect(run.code).toBe(0);
      expect(run.known).toEqual(["getMonitor/http-control-byte"]);
      expect(run.warned).not.toContain("getMonitor/http-control-byte");
      const xml = readFileSync(junit, "utf8");
      expect(xml).not.toContain("<failure");
      const stalled = /<testcase classname="webdata\.startCrawl" name="http-stalled-body"[^>]*>[\s\S]*?<\/testcase>/.exec(xml)?.[0];
      expect(stalled).toMatch(/<property name="severity" value="warning"\/>/);
      expect(stalled).toMatch(/<system-out>WARNING: /);
      const json = JSON.parse(readFileSync(report, "utf8")) as Report;
      expect(json.warnings).toBe(run.warned.length);
      expect(json.failOn).toBe("failure");
      const stalledResult = json.operations.startCrawl!.checks.find((check) => check.check === "http-stalled-body")!;
      expect(stalledResult).toMatchObject({ passed: false, severity: "warning" });

      await runProbes(edge.url, "webdata", ["--junit", junit, "--fail-on", "warning"]);
      const failing = readFileSync(junit, "utf8");
      expect((failing.match(/<failure /g) ?? []).length).toBe(run.warned.length + 1);
      expect(failing).toMatch(/<failure type="warning" message=/);
    } finally {
      await edge.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A server speaking raw bytes: for what no node HTTP server would send. */
async function startRawServer(onConnection: (socket: Socket) => void) {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A 400 as getTokenUsage documents it (the probes below judge that operation's lines). */
const DOCUMENTED_400 = JSON.stringify(contractOf("webdata").reply({ kind: "bad-request", message: "Bad Request" }, { method: "GET", path: "/v2/team/token-usage" }).body);

describe("HTTP probes against servers that misbehave after answering", () => {
  it("an endless answer is read only up to --max-answer-bytes", async () => {
    const server = await startRawServer((socket) => {
      socket.once("data", (head: Buffer) => {
        // The preflight's requests (fetch's, which name their user agent) get a documented refusal.
        if (/\r\nuser-agent:/i.test(head.toString("latin1"))) {
          return void socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${DOCUMENTED_400.length}\r\n\r\n${DOCUMENTED_400}`);
        }
        socket.write("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
        const chunk = `4000\r\n${"x".repeat(0x4000)}\r\n`;
        const pump = () => {
          while (!socket.destroyed && socket.write(chunk));
          if (!socket.destroyed) socket.once("drain", pump);
        };
        pump();
      });
    });
    try {
      const run = await runProbes(server.url, "webdata", ["--max-answer-bytes", "65536"]);
      expect(run.passed).toEqual([]);
      expect(run.failed).toEqual(probeNames("webdata"));
      for (const line of run.out.filter((text) => text.startsWith("FAIL "))) expect(line).toMatch(/longer than 65536 bytes \(--max-answer-bytes\)/);
    } finally {
      await server.close();
    }
  });

  it("a connection kept open that answers nothing more is reported as hanging; one that answers again is usable", async () => {
    const answer = `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${DOCUMENTED_400.length}\r\n\r\n${DOCUMENTED_400}`;
    const hanging = await startRawServer((socket) => socket.once("data", () => socket.write(answer)));
    const usable = await startRawServer((socket) => {
      let buffered = "";
      socket.on("data", (chunk: Buffer) => {
        buffered += chunk.toString("latin1");
        // One answer per request head seen; the probe's own bytes and its follow-up each end in a blank line.
        while (buffered.includes("\r\n\r\n")) {
          buffered = buffered.slice(buffered.indexOf("\r\n\r\n") + 4);
          socket.write(answer);
        }
      });
    });
    try {
      const hangs = await runProbes(hanging.url, "webdata", ["--timeout", "300"]);
      const controlByte = hangs.out.find((line) => line.startsWith("FAIL getTokenUsage http-control-byte"));
      expect(controlByte).toMatch(/the connection then stayed open without answering another request/);
      const reuses = await runProbes(usable.url, "webdata", ["--timeout", "300"]);
      expect(reuses.out.find((line) => line.includes("getTokenUsage http-control-byte"))).toMatch(/^PASS .*the connection was then still usable/);
      // A request framed two ways must end its connection, even when it was refused.
      expect(reuses.out.find((line) => line.includes("startCrawl http-framing-conflict"))).toMatch(/^FAIL .*RFC 9112, section 6\.1/);
    } finally {
      await hanging.close();
      await usable.close();
    }
  });
});

describe("reproductions", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "probe-repro-"));
    // Stands in for nc: what the pipe carries is written to a file.
    writeFileSync(path.join(dir, "nc"), `#!/bin/sh\ncat > "${dir}/sent"\n`);
    chmodSync(path.join(dir, "nc"), 0o755);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the printed command sends exactly the probe's bytes, the key from $API_KEY", () => {
    const pieces: Piece[] = [
      { text: "POST /v2/crawl HTTP/1.1\r\nHost: 127.0.0.1:9\r\nAuthorization: Bearer " },
      { key: true },
      { text: "\r\nX-Odd: 100% \\ 'quoted' \u0001\u007f\r\nX-Pad: " },
      { fill: "a", count: 70_000 },
      { text: "\r\n\r\n" },
    ];
    const command = reproduction(pieces, new URL("http://127.0.0.1:9"), 0);
    expect(command).not.toContain(KEY);
    execFileSync("sh", ["-c", command], { env: { PATH: `${dir}:${process.env.PATH}`, API_KEY: KEY } });
    expect(readFileSync(path.join(dir, "sent")).equals(rawBytes(pieces, KEY))).toBe(true);
  });
});
