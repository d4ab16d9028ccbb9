import { request as httpRequest, Agent } from "node:http";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

export type Service = "entitlements" | "webdata";

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

export interface Outgoing {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** Sends one request exactly as given (no JSON encoding, no header clean-up). */
export function send(baseUrl: string, out: Outgoing): Promise<Reply> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method: out.method, path: out.path, headers: out.headers ?? {}, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(out.body);
  });
}

export function post(baseUrl: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return send(baseUrl, {
    method: "POST",
    path,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

const require = createRequire(import.meta.url);
type Json = Record<string, unknown>;

export function loadBundle(service: Service): Json {
  return JSON.parse(readFileSync(require.resolve(`@api-contracts/spec/${service}.json`), "utf8")) as Json;
}

/**
 * A validator for "some error response this API documents": the union of the JSON schemas of every
 * 4xx/5xx response of every operation, taken from the bundle.
 */
export function documentedErrorValidator(service: Service) {
  const document = loadBundle(service);
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema(document, "api");
  const pointers = new Set<string>();
  const follow = (node: Json, at: string): [Json, string] => {
    const ref = node.$ref;
    if (typeof ref !== "string") return [node, at];
    const pointer = ref.slice(1);
    const target = pointer
      .split("/")
      .slice(1)
      .reduce<unknown>((v, k) => (v as Json)[k.replaceAll("~1", "/").replaceAll("~0", "~")], document) as Json;
    return follow(target, pointer);
  };
  for (const [path, item] of Object.entries(document.paths as Json)) {
    for (const [method, operation] of Object.entries(item as Json)) {
      const responses = (operation as Json).responses as Json | undefined;
      for (const [code, raw] of Object.entries(responses ?? {})) {
        if (Number(code) < 400) continue;
        const esc = path.replaceAll("~", "~0").replaceAll("/", "~1");
        const [response, at] = follow(raw as Json, `/paths/${esc}/${method}/responses/${code}`);
        if ((response.content as Json | undefined)?.["application/json"]) {
          pointers.add(`api#${at}/content/application~1json/schema`);
        }
      }
    }
  }
  const validate = ajv.compile({ anyOf: [...pointers].map(($ref) => ({ $ref })) });
  return (body: unknown) => validate(body);
}

/** Examples of one operation's responses, by status and example name. */
export function documentedExamples(service: Service, path: string, method: string): Map<string, { status: number; value: unknown }> {
  const document = loadBundle(service);
  const deref = (node: unknown): Json => {
    let n = node as Json;
    while (typeof n.$ref === "string") {
      n = (n.$ref as string)
        .slice(2)
        .split("/")
        .reduce<unknown>((v, k) => (v as Json)[k.replaceAll("~1", "/").replaceAll("~0", "~")], document) as Json;
    }
    return n;
  };
  const operation = ((document.paths as Json)[path] as Json)[method] as Json;
  const found = new Map<string, { status: number; value: unknown }>();
  for (const [code, raw] of Object.entries(operation.responses as Json)) {
    const media = ((deref(raw).content as Json | undefined)?.["application/json"] ?? {}) as Json;
    for (const [name, example] of Object.entries((media.examples ?? {}) as Json)) {
      found.set(name, { status: Number(code), value: deref(example).value });
    }
  }
  return found;
}
