import type { Outgoing, Service } from "./support.js";

/** mulberry32: a small seeded generator, so that every run sends the same requests. */
export function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick };
}

type Json = Record<string, unknown>;

interface Target {
  method: string;
  path: string;
  body?: Json;
  /** Members that accept only a non-null value of one type. */
  strict?: Record<string, "string" | "integer" | "number">;
  /** Members whose absence makes the body invalid. */
  required?: string[];
}

export interface ApiShape {
  service: Service;
  auth: string;
  targets: Target[];
  knownPaths: string[];
  /** The bodies ignore members they do not declare (as the live service does), so an unknown member alone is no fault. */
  openBodies?: boolean;
  /** Every body is read as JSON whatever its Content-Type (as the live service reads it), so only a body that is not JSON is a fault there. */
  everyBodyIsJson?: boolean;
}

const uuid = "3c9ba5a4-2b7e-4a59-a3b9-9d4d0f6a1b2c";

export const shapes: Record<Service, ApiShape> = {
  webdata: {
    service: "webdata",
    auth: "Bearer fc-0123456789abcdef0123456789abcdef",
    targets: [
      {
        method: "POST",
        path: "/v2/crawl",
        body: { url: "https://example.com", limit: 10, scrapeOptions: { formats: ["markdown"] } },
        strict: { url: "string", limit: "number" },
        required: ["url"],
      },
      { method: "DELETE", path: `/v2/crawl/${uuid}` },
      { method: "GET", path: "/v2/interact?status=active" },
      { method: "GET", path: "/v2/browser" },
      { method: "GET", path: `/v2/monitor/${uuid}` },
      { method: "GET", path: "/v2/team/token-usage" },
      { method: "GET", path: "/v2/team/credit-usage/historical?byApiKey=true" },
    ],
    knownPaths: ["/v2/crawl", `/v2/crawl/${uuid}`, "/v2/interact", "/v2/browser", `/v2/monitor/${uuid}`, "/v2/team/token-usage"],
  },
  entitlements: {
    service: "entitlements",
    auth: "Bearer am_sk_test_0123456789",
    targets: [
      {
        method: "POST",
        path: "/v1/balances.check",
        body: { customer_id: "cus_123", feature_id: "messages", required_balance: 1 },
        strict: { customer_id: "string", feature_id: "string", required_balance: "number" },
        required: ["customer_id", "feature_id"],
      },
      {
        method: "POST",
        path: "/v1/check",
        body: { customer_id: "cus_123", feature_id: "messages" },
        strict: { customer_id: "string", feature_id: "string" },
        required: ["customer_id", "feature_id"],
      },
      {
        method: "POST",
        path: "/v1/balances.track",
        body: { customer_id: "cus_123", feature_id: "messages", value: 1 },
        strict: { customer_id: "string" },
        required: ["customer_id"],
      },
      {
        method: "POST",
        path: "/v1/balances.finalize",
        body: { lock_id: "lock_1", action: "confirm" },
        strict: { lock_id: "string" },
        required: ["lock_id", "action"],
      },
    ],
    knownPaths: ["/v1/balances.check", "/v1/balances.track", "/v1/balances.finalize", "/v1/check", "/v1/track"],
    openBodies: true,
    everyBodyIsJson: true,
  },
};

const wrongFor: Record<string, unknown[]> = {
  string: [123, true, [], {}, null, ["a"], { a: 1 }],
  integer: ["ten", true, [], {}, null, 1.5, "1"],
  number: ["ten", true, [], {}, null, "1", [1]],
};

const garbledAuth = [
  "",
  "Bearer",
  "Bearer ",
  "bearer\t",
  "Basic Zm9vOmJhcg==",
  "Bearer two tokens",
  "Bearer !!!",
  "Bearer =abc",
  "Token abc",
  "fc-0123456789abcdef",
  "Bearer a,b",
  "Bearer {json}",
];

const wrongTypes = ["text/plain", "application/xml", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/html"];

function json(body: unknown): string {
  return JSON.stringify(body);
}

/** Yields `count` requests that each break at least one rule of the contract. */
export function* badRequests(shape: ApiShape, count: number, seed: number): Generator<Outgoing & { kind: string }> {
  const r = seeded(seed);
  const withBody = shape.targets.filter((t) => t.body);
  const headers = (extra: Record<string, string> = {}) => ({ authorization: shape.auth, ...extra });
  const kinds = [
    "malformed-json",
    "wrong-type",
    "missing-member",
    "unknown-member",
    "unknown-path",
    "wrong-method",
    "wrong-content-type",
    "missing-auth",
    "garbled-auth",
    "not-an-object",
  ] as const;
  for (let i = 0; i < count; i++) {
    // A handful of 5 MB bodies, spread over the run.
    if (i % 400 === 199) {
      const t = r.pick(withBody);
      const huge = `{"pad":"${"x".repeat(5 * 1024 * 1024)}"}`;
      yield { kind: "huge-body", method: t.method, path: t.path, headers: headers({ "content-type": "application/json" }), body: huge };
      continue;
    }
    const kind = kinds[i % kinds.length]!;
    const t = r.pick(withBody);
    const body = structuredClone(t.body!);
    const jsonHeaders = headers({ "content-type": "application/json" });
    switch (kind) {
      case "malformed-json": {
        const text = json(body);
        const variants = [
          text.slice(0, 1 + r.int(text.length - 1)),
          text.replace(/"/g, "'"),
          `${text.slice(0, -1)},}`,
          text.replace(":", " "),
          `${text}garbage`,
          "{NaN}",
          "\u0000\u0001",
        ];
        yield { kind, method: t.method, path: t.path, headers: jsonHeaders, body: r.pick(variants) };
        break;
      }
      case "wrong-type": {
        const [member, type] = r.pick(Object.entries(t.strict!));
        body[member] = r.pick(wrongFor[type]!);
        yield { kind, method: t.method, path: t.path, headers: jsonHeaders, body: json(body) };
        break;
      }
      case "missing-member": {
        delete body[r.pick(t.required!)];
        yield { kind, method: t.method, path: t.path, headers: jsonHeaders, body: json(body) };
        break;
      }
      case "unknown-member": {
        body[`zz_${r.int(1e6)}`] = r.pick([1, "x", true, null, {}, []]);
        if (shape.openBodies) delete body[r.pick(t.required!)];
        yield { kind, method: t.method, path: t.path, headers: jsonHeaders, body: json(body) };
        break;
      }
      case "not-an-object": {
        yield { kind, method: t.method, path: t.path, headers: jsonHeaders, body: r.pick(["[]", "42", '"text"', "true", "[{}]"]) };
        break;
      }
      case "unknown-path": {
        const base = r.pick(shape.knownPaths);
        const path = r.pick([`${base}/extra`, `${base}x`, `/v${r.int(9) + 3}/crawl`, `/${r.int(1e6)}`, "/", `/v1/${r.int(1e4)}/deep/path`, "/%2e%2e/etc"]);
        const sent = r.next() < 0.5 ? json(body) : "";
        // Framed by its length: node sends a GET's or DELETE's body unframed, as the start of the next request.
        yield { kind, method: r.pick(["GET", "POST", "DELETE"]), path, headers: { ...jsonHeaders, "content-length": String(Buffer.byteLength(sent)) }, body: sent };
        break;
      }
      case "wrong-method": {
        const any = r.pick(shape.targets);
        const method = r.pick(["PUT", "PATCH", "OPTIONS", any.method === "GET" ? "POST" : "GET", any.method === "DELETE" ? "POST" : "DELETE"]);
        yield { kind, method, path: any.path.split("?")[0]!, headers: jsonHeaders };
        break;
      }
      case "wrong-content-type": {
        const type = r.pick(wrongTypes);
        yield { kind, method: t.method, path: t.path, headers: headers({ "content-type": type }), body: r.next() < 0.5 && !shape.everyBodyIsJson ? json(body) : "a=1&b=2" };
        break;
      }
      case "missing-auth": {
        const any = r.pick(shape.targets);
        yield { kind, method: any.method, path: any.path, headers: { "content-type": "application/json" }, ...(any.body ? { body: json(any.body) } : {}) };
        break;
      }
      case "garbled-auth": {
        const any = r.pick(shape.targets);
        const headerSet: Record<string, string> = { "content-type": "application/json", authorization: r.pick(garbledAuth) };
        yield { kind, method: any.method, path: any.path, headers: headerSet, ...(any.body ? { body: json(any.body) } : {}) };
        break;
      }
    }
  }
}
