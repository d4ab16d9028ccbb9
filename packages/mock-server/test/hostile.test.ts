import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OpenApiValidators, loadBundle } from "@api-contracts/contract-core";
import { startMockServer, type RunningServer } from "../src/index.js";
import { documentedErrorValidator, post, send, type Service } from "./support.js";

/** An answer read off a raw socket, up to the moment the server closed it. */
interface RawReply {
  status: number;
  json: unknown;
  text: string;
}

/** Writes `chunks` to a fresh connection, one per `everyMs`, and resolves with what comes back before the server closes it. */
function raw(url: string, chunks: Array<string | Buffer>, everyMs = 0): Promise<RawReply> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const received: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    socket.on("error", (error: NodeJS.ErrnoException) => {
      // A reset after the answer was read is the server closing an unfinished request.
      if (error.code !== "ECONNRESET" && error.code !== "EPIPE") reject(error);
    });
    socket.on("close", () => {
      clearInterval(timer);
      const text = Buffer.concat(received).toString("latin1");
      const [head = "", ...rest] = text.split("\r\n\r\n");
      const body = rest.join("\r\n\r\n");
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), json, text });
    });
    socket.on("connect", () => {
      const queue = [...chunks];
      const next = () => {
        const chunk = queue.shift();
        if (chunk !== undefined && !socket.destroyed) socket.write(chunk);
        if (queue.length === 0) clearInterval(timer);
      };
      if (everyMs === 0) while (queue.length > 0) next();
      else timer = setInterval(next, everyMs);
    });
  });
}

const keys: Record<Service, string> = { webdata: "Bearer fc-0123456789abcdef0123456789abcdef", entitlements: "Bearer am_sk_test_0123456789" };
const targets: Record<Service, { path: string; body: Record<string, unknown> }> = {
  webdata: { path: "/v2/crawl", body: { url: "https://example.com" } },
  entitlements: { path: "/v1/balances.check", body: { customer_id: "cus_1", feature_id: "messages" } },
};
const LIMIT = 4 * 1024 * 1024;

describe.each(["webdata", "entitlements"] as const)("%s mock under hostile input", (service) => {
  let mock: RunningServer;
  const isDocumentedError = documentedErrorValidator(service);
  const { path, body } = targets[service];
  const auth = { authorization: keys[service] };
  const head = (extra: string) => `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${keys[service]}\r\nContent-Type: application/json\r\n${extra}\r\n`;
  const stillServes = async () => expect((await post(mock.url, path, body, auth)).status).toBe(200);

  beforeAll(async () => {
    mock = await startMockServer({ service, bodyLimit: LIMIT, requestTimeout: 1_000, headersTimeout: 500 });
  });
  afterAll(() => mock.close());

  it("error amplification: 2 MB of wrong members is a 400 with at most 20 problems in under 64 KB, and the mock stays up", async () => {
    // Web Data: numbers where strings are due; Entitlements (whose bodies ignore members they do
    // not declare): every declared member of the wrong type among 200 000 ignored ones.
    const wrongTypes = { customer_id: 1, feature_id: 1, entity_id: 1, required_balance: "1", required_quantity: "1", properties: 1, send_event: 1, with_preview: 1, product_id: 1, skip_event: 1, lock: { lock_id: 1, enabled: 1, expires_at: "1" }, customer_data: { name: 1, email: 1, fingerprint: 1, metadata: 1, stripe_id: 1, create_in_stripe: 1, currency: 1 }, entity_data: { feature_id: 1, name: 1 } };
    const wrong =
      service === "webdata"
        ? { ...body, includePaths: Array.from({ length: 1024 * 1024 }, () => 1) }
        : { ...body, ...Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, 1])), ...wrongTypes };
    expect(JSON.stringify(wrong).length).toBeGreaterThan(2_000_000);
    const reply = await post(mock.url, path, wrong, auth);
    expect(reply.status, reply.text.slice(0, 200)).toBe(400);
    expect(isDocumentedError(reply.json)).toBe(true);
    expect(reply.text.length).toBeLessThan(64 * 1024);
    if (service === "webdata") expect((reply.json as { details: unknown[] }).details.length).toBeLessThanOrEqual(20);
    else expect((reply.json as { message: string }).message.split(";").length).toBeLessThanOrEqual(20);
    await stillServes();
  });

  it("a declared Content-Length over the limit is refused from the header with 413, without waiting for the body", async () => {
    const reply = await raw(mock.url, [head(`Content-Length: ${50 * 1024 * 1024}\r\n`), "{"]);
    expect(reply.status).toBe(413);
    expect(isDocumentedError(reply.json), reply.text).toBe(true);
    await stillServes();
  });

  it("headers that trickle in are answered 408 in the API's shape", async () => {
    const reply = await raw(mock.url, [`POST ${path} HTTP/1.1\r\n`, "Host: x\r\n", "X-Slow: 1\r\n", "X-Slow: 2\r\n", "X-Slow: 3\r\n", "X-Slow: 4\r\n", "X-Slow: 5\r\n", "X-Slow: 6\r\n", "X-Slow: 7\r\n", "X-Slow: 8\r\n"], 300);
    expect(reply.status, reply.text).toBe(408);
    expect(isDocumentedError(reply.json), reply.text).toBe(true);
  });

  it("a body that trickles in is answered 408 in the API's shape", async () => {
    const text = JSON.stringify(body);
    const reply = await raw(mock.url, [head(`Content-Length: ${text.length}\r\n`), ...text.split("")], 200);
    expect(reply.status, reply.text).toBe(408);
    expect(isDocumentedError(reply.json), reply.text).toBe(true);
    await stillServes();
  });

  it("bad chunked encoding is a 400 in the API's shape", async () => {
    const reply = await raw(mock.url, [head("Transfer-Encoding: chunked\r\n"), "zz\r\n{}\r\n0\r\n\r\n"]);
    expect(reply.status, reply.text).toBe(400);
    expect(isDocumentedError(reply.json), reply.text).toBe(true);
  });

  it("Content-Length together with Transfer-Encoding is a 400 in the API's shape", async () => {
    const reply = await raw(mock.url, [head("Content-Length: 2\r\nTransfer-Encoding: chunked\r\n"), "2\r\n{}\r\n0\r\n\r\n"]);
    expect(reply.status, reply.text).toBe(400);
    expect(isDocumentedError(reply.json), reply.text).toBe(true);
  });

  it("a header larger than the server accepts is a 400 in the API's shape", async () => {
    const reply = await raw(mock.url, [head(`X-Big: ${"a".repeat(20_000)}\r\nContent-Length: 0\r\n`)]);
    expect(reply.status, reply.text).toBe(400);
    expect(isDocumentedError(reply.json), reply.text).toBe(true);
  });

  it("a URL longer than the server accepts is a 400 in the API's shape", async () => {
    const reply = await raw(mock.url, [`GET ${path}?q=${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`]);
    expect(reply.status, reply.text).toBe(400);
    expect(isDocumentedError(reply.json), reply.text).toBe(true);
  });

  it("an undecodable path is a 4xx in the API's shape", async () => {
    const target = service === "webdata" ? "/v2/monitor/%ZZ" : "/v1/balances.check%ZZ";
    const reply = await send(mock.url, { method: service === "webdata" ? "GET" : "POST", path: target, headers: auth });
    expect(reply.status, reply.text).toBe(service === "webdata" ? 400 : 404);
    expect(isDocumentedError(reply.json), reply.text).toBe(true);
  });

  it("a number that parses to Infinity is a 400 naming the member", async () => {
    const member = service === "webdata" ? "limit" : "required_balance";
    const text = JSON.stringify(body).replace(/}$/, `,"${member}":1e400}`);
    const reply = await send(mock.url, { method: "POST", path, headers: { ...auth, "content-type": "application/json" }, body: text });
    expect(reply.status, reply.text).toBe(400);
    expect(isDocumentedError(reply.json)).toBe(true);
    expect(reply.text).toContain(member);
    expect(reply.text).toContain("finite");
  });

  it("__proto__ and constructor members pollute nothing: unknown at the top (refused by a closed body, ignored by an open one), accepted inside free-form properties", async () => {
    const top = JSON.stringify(body).replace(/}$/, `,"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}`);
    const answered = await send(mock.url, { method: "POST", path, headers: { ...auth, "content-type": "application/json" }, body: top });
    if (service === "webdata") {
      expect(answered.status).toBe(400);
      expect(answered.text).toContain("__proto__");
      expect(isDocumentedError(answered.json)).toBe(true);
    } else {
      expect(answered.status, answered.text).toBe(200);
    }
    if (service === "entitlements") {
      const inside = JSON.stringify(body).replace(/}$/, `,"properties":{"__proto__":{"polluted":true},"constructor":1}}`);
      const accepted = await send(mock.url, { method: "POST", path, headers: { ...auth, "content-type": "application/json" }, body: inside });
      expect(accepted.status, accepted.text).toBe(200);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await stillServes();
  });
});

describe("the web data mock's operation that takes no input", () => {
  let mock: RunningServer;
  beforeAll(async () => {
    mock = await startMockServer({ service: "webdata" });
  });
  afterAll(() => mock.close());

  it("answers a header larger than the server accepts with the 400 it documents", async () => {
    const reply = await raw(mock.url, [`GET /v2/team/token-usage HTTP/1.1\r\nHost: x\r\nAuthorization: ${keys.webdata}\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`]);
    expect(reply.status, reply.text).toBe(400);
    const documented = new OpenApiValidators(loadBundle("webdata")).response("GET", "/v2/team/token-usage", 400);
    expect(documented, "GET /v2/team/token-usage documents 400").not.toBeNull();
    expect(documented!(reply.json), reply.text).toBe(true);
  });
});
