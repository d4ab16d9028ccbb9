import { connect, type Socket } from "node:net";
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { OpenApiValidators, loadBundle } from "@api-contracts/contract-core";
import { startReferenceServer, type ReferenceServerOptions, type ReferenceServer, type Service } from "../src/index.js";

/** The bundle's validators, compiled apart from the server's own, for judging its answers. */
export const validatorsOf = (api: Service): OpenApiValidators => new OpenApiValidators(loadBundle(api));

export interface Call {
  status: number;
  body: any;
}

/** Every answer a test receives is checked against the documented schema of its status. */
export class ApiUnderTest {
  private readonly spec: OpenApiValidators;
  readonly seen: Array<{ method: string; path: string; status: number }> = [];

  constructor(
    readonly api: Service,
    readonly server: ReferenceServer,
    readonly apiKey: string,
  ) {
    this.spec = validatorsOf(api);
  }

  async request(method: string, url: string, options: { body?: unknown; rawBody?: string; headers?: Record<string, string>; auth?: string | null; template?: string } = {}): Promise<Call> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.auth !== null) headers.authorization = options.auth ?? `Bearer ${this.apiKey}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers["content-type"] ??= "application/json";
    const response = await fetch(`${this.server.url}${url}`, { method, headers, body });
    const text = await response.text();
    const parsed: unknown = text === "" ? undefined : JSON.parse(text);
    const path = options.template ?? url.split("?")[0]!;
    const validator = this.spec.response(method, path, response.status);
    if (!validator) throw new Error(`${method} ${path} answered ${response.status}, which the ${this.api} description does not document: ${text}`);
    if (!validator(parsed)) throw new Error(`${method} ${path} ${response.status} body does not match the description: ${JSON.stringify(validator.errors)}\n${text}`);
    this.seen.push({ method, path, status: response.status });
    return { status: response.status, body: parsed };
  }

  post(url: string, body: unknown, options: { headers?: Record<string, string>; auth?: string | null } = {}): Promise<Call> {
    return this.request("POST", url, { body, ...options });
  }
}

export async function startApi(service: Service, options: Omit<ReferenceServerOptions, "service"> = {}): Promise<ApiUnderTest> {
  const server = await startReferenceServer({ service, ...options });
  const { defaultFixtures, validateFixtures } = await import("../src/fixtures.js");
  return new ApiUnderTest(service, server, validateFixtures(options.fixtures ?? defaultFixtures).api_keys[service]);
}

/** A clock tests can move by hand. */
export function manualClock(start = Date.UTC(2025, 5, 15, 12, 0, 0)): { now: () => number; advance(ms: number): void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

export interface RawAnswer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  text: string;
  body: any;
}

/**
 * Writes bytes to the server over a plain socket (for requests `fetch` refuses to send) and reads
 * the answer until the server closes the connection. `then` runs after the first write, to send
 * more later or to keep the socket open.
 */
export function rawRequest(url: string, request: string, then?: (socket: Socket) => void): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    // The server may reset a connection it refuses while bytes are still in flight.
    socket.on("error", () => undefined);
    socket.on("close", () => {
      const response = Buffer.concat(chunks).toString("utf8");
      const split = response.indexOf("\r\n\r\n");
      if (split < 0) return reject(new Error(`no HTTP answer: ${JSON.stringify(response)}`));
      const [statusLine = "", ...lines] = response.slice(0, split).split("\r\n");
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
      const text = response.slice(split + 4);
      resolve({ status: Number(statusLine.split(" ")[1]), headers, text, body: text === "" ? undefined : JSON.parse(text) });
    });
    socket.write(request, () => then?.(socket));
  });
}

/**
 * Runs a TypeScript module in a child process and returns what it printed; a run that does not
 * finish within `timeoutMs` fails, so that a runaway computation fails a test instead of freezing the run.
 */
export async function runIsolated(source: string, timeoutMs = 30_000): Promise<string> {
  const tsx = path.resolve(import.meta.dirname, "../../../node_modules/tsx/dist/cli.mjs");
  const dir = mkdtempSync(path.join(tmpdir(), "isolated-"));
  try {
    writeFileSync(path.join(dir, "run.mts"), source);
    const { stdout } = await promisify(execFile)(process.execPath, [tsx, path.join(dir, "run.mts")], { timeout: timeoutMs });
    return stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Absolute import specifier of contract-core's main entry, for {@link runIsolated}. */
export const coreModule = JSON.stringify(createRequire(import.meta.url).resolve("@api-contracts/contract-core"));

/** Absolute import specifier of a source module of this package, for {@link runIsolated}. */
export const sourceModule = (name: string): string => JSON.stringify(path.resolve(import.meta.dirname, "../src", name));

/** The bytes of an authenticated JSON POST that asks the server to close the connection after answering. */
export function rawPost(apiKey: string, target: string, body: string): string {
  return `POST ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}
