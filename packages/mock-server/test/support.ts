import { request as httpRequest, Agent } from "node:http";
import { OpenApiValidators, follow, loadBundle, resolvePointer, type JsonObject as Json } from "@api-contracts/contract-core";

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

/**
 * A validator for "some error response this API documents": the union of the JSON schemas of every
 * 4xx/5xx response of every operation, taken from the bundle.
 */
export function documentedErrorValidator(service: Service) {
  const validators = new OpenApiValidators(loadBundle(service));
  const checks = validators.listOperations().flatMap(({ method, path, pointer }) => {
    const codes = Object.keys((resolvePointer(validators.document, `${pointer}/responses`) ?? {}) as object);
    return codes.filter((code) => Number(code) >= 400).flatMap((code) => validators.response(method, path, Number(code)) ?? []);
  });
  return (body: unknown) => checks.some((validate) => validate(body));
}

/** Examples of one operation's responses, by status and example name. */
export function documentedExamples(service: Service, path: string, method: string): Map<string, { status: number; value: unknown }> {
  const document = loadBundle(service);
  const deref = (node: unknown) => follow(document, node, "").node as Json;
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
