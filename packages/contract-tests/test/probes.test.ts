// The HTTP probes: raw requests fetch will not send. Each fault of an HTTP edge must fail exactly
// the probes that guard it; a correct edge and the mocks pass.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { RequestListener } from "node:http";
import { createServer as createTcpServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContractErrors, createEdgeServer, listen, type Problem } from "@api-contracts/contract-core";
import { startMockServer } from "@api-contracts/mock-server";
import { listChecks } from "../src/index.js";
import { PROBES } from "../src/probes/checks.js";
import { rawBytes, reproduction, type Piece } from "../src/probes/wire.js";
import { passOn, runCli } from "./helpers.js";

const KEY = "fc-0123456789abcdef0123456789abcdef";
/** The edges under test give up on a request after this long; the kit waits longer. */
const REQUEST_DEADLINE_MS = 800;
const KIT_TIMEOUT_MS = "3000";
const BODY_LIMIT = 1024 * 1024;

interface EdgeFaults {
  /** Parser refusals get node's own answer: a bare 400 or 408 with no body. */
  bareParserErrors?: boolean;
  /** A declared body over the limit cuts the connection instead of answering 413. */
  cutOversized?: boolean;
  /** No request deadline: a stalled body is waited for forever. */
  noDeadline?: boolean;
  /** Refusals carry a body that is not the API's error shape. */
  wrongShape?: boolean;
}

type Service = "entitlements" | "webdata";

/** An HTTP edge in front of a mock, correct unless told which fault to have. */
async function startEdge(service: Service, upstream: string, faults: EdgeFaults = {}) {
  const errors = new ContractErrors(service);
  const word = (problem: Problem) => {
    const reply = errors.reply(problem);
    return faults.wrongShape ? { status: reply.status, body: { detail: "refused" } } : reply;
  };
  const handler: RequestListener = (req, res) => {
    if (Number(req.headers["content-length"] ?? 0) > BODY_LIMIT) {
      if (faults.cutOversized) return void req.socket.destroy();
      const reply = word({ kind: "too-large", limit: BODY_LIMIT });
      res.writeHead(reply.status, { "content-type": "application/json", connection: "close" });
      return void res.end(JSON.stringify(reply.body));
    }
    passOn(upstream, req, res).catch(() => res.destroy());
  };
  const deadline = faults.noDeadline ? 0 : REQUEST_DEADLINE_MS;
  const server = createEdgeServer({ requestTimeoutMs: deadline, headersTimeoutMs: deadline }, handler, faults.bareParserErrors ? undefined : word);
  const { url } = await listen(server, 0, "127.0.0.1");
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
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
  runCli(["--service", service, "--base-url", url, "--api-key", KEY, "--level", "http", "--timeout", KIT_TIMEOUT_MS, ...extra]);

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

  it("the README's table and --help describe every probe", async () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    for (const probe of PROBES) expect(readme).toMatch(new RegExp(`^\\| \`${probe.name}\` \\|`, "m"));
    expect((await runCli(["--help"])).out.join("\n")).toMatch(/http: only the HTTP probes/);
  });

  it("refuses --generate with --level http", async () => {
    const run = await runProbes(mocks.get("webdata")!.url, "webdata", ["--generate", "5"]);
    expect(run.code).toBe(2);
    expect(run.err.join("\n")).toMatch(/generate applies to the schema and behavior levels/);
  });
});

describe("HTTP probes against faulty edges (webdata)", () => {
  const all = probeNames("webdata");
  const cases: Array<{ fault: string; faults: EdgeFaults; expected: string[]; why: RegExp }> = [
    { fault: "bare 400 and 408 from the parser", faults: { bareParserErrors: true }, expected: all.filter((name) => !name.endsWith("http-body-over-limit")), why: /has no Content-Type/ },
    { fault: "connection cut on an oversized Content-Length", faults: { cutOversized: true }, expected: ["startCrawl/http-body-over-limit"], why: /without a complete answer/ },
    { fault: "no answer to a stalled body", faults: { noDeadline: true }, expected: ["startCrawl/http-stalled-body"], why: /nothing within 3000 ms \(--timeout\) \(a server whose request deadline is longer than --timeout fails this too/ },
    { fault: "refusals in the wrong shape", faults: { wrongShape: true }, expected: all, why: /body does not match the contract/ },
  ];
  for (const { fault, faults, expected, why } of cases) {
    it(`${fault} fails ${expected.length === 1 ? expected[0] : `${expected.length} probes`}, each with a reproduction that hides the key`, async () => {
      const edge = await startEdge("webdata", mocks.get("webdata")!.url, faults);
      try {
        const run = await runProbes(edge.url, "webdata");
        expect(run.failed, run.out.join("\n")).toEqual(expected);
        expect(run.code).toBe(1);
        const failures = run.out.filter((line) => line.startsWith("FAIL "));
        expect(failures[0]).toMatch(why);
        for (const line of failures) {
          expect(line).toMatch(/ -- reproduce: \(printf '.*' "\$API_KEY".*; sleep \d+\) \| nc 127\.0\.0\.1 \d+$/);
          expect(line).not.toContain(KEY);
        }
      } finally {
        await edge.close();
      }
    });
  }
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
const DOCUMENTED_400 = JSON.stringify(new ContractErrors("webdata").reply({ kind: "bad-request", message: "Bad Request" }, { method: "GET", path: "/v2/team/token-usage" }).body);

describe("HTTP probes against servers that misbehave after answering", () => {
  it("an endless answer is read only up to --max-answer-bytes", async () => {
    const server = await startRawServer((socket) => {
      socket.once("data", () => {
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
