// A run's options, from the API, the command line or CONTRACT_* variables, checked and resolved.
import { isObject, parseHttpUrl, redactor } from "@api-contracts/contract-core";
import { DEFAULT_LIMITS } from "./http.js";
import { services, type Selection, type Service } from "./checks/registry.js";
import { maskUrl } from "./secrets.js";
import { LEVELS, SEVERITIES, type Level, type Severity } from "./checks/types.js";
import { checkFixtures, PLACEHOLDER, readFixturesFile, requireServiceFixtures, UsageError, type Fixtures } from "./fixtures.js";
import { loadKnownDifferences, type KnownDifference } from "./known-differences.js";
import type { Progress } from "./generate/generated.js";
import { DEFAULT_WEBHOOK_DEADLINE_MS, type WebhookStageOptions } from "./webhooks/stage.js";
import type { CheckResult, RunLimits } from "./report.js";

export interface ContractTestOptions extends Selection {
  service: Service;
  baseUrl: string;
  /** Bearer key; defaults to `fixtures.api_keys[service]`. */
  apiKey?: string;
  /** Failures and warnings the implementer has accepted: reported as known (see `loadKnownDifferences`). */
  knownDifferences?: readonly KnownDifference[];
  /** The least severity that fails the run: `failure` (default), or `warning` to fail on warnings too. */
  failOn?: Severity;
  /** The fixtures object, or the path of a JSON file holding it. */
  fixtures?: Fixtures | string;
  level?: Level;
  /** Called after each check, in order (the CLI prints from here). */
  onResult?: (result: CheckResult) => void;
  /** Longest wait for one answer, in milliseconds (default 10000); past it the target counts as unreachable. */
  timeoutMs?: number;
  /** Longest whole run, in milliseconds (default 300000); past it the target counts as unreachable. */
  maxTimeMs?: number;
  /** Most bytes read of one answer (default 1048576); a longer answer fails its check. */
  maxAnswerBytes?: number;
  /** Used for every request instead of the global fetch. */
  fetch?: typeof globalThis.fetch;
  /** Examples per generated check (valid, invalid, linked); generation is off when absent. */
  generate?: number;
  /** Seed of the generated examples (default: random); the same seed makes the same requests. */
  seed?: number;
  /** Called after each generated example (the CLI draws its progress line from here). */
  onProgress?: (progress: Progress) => void;
  /**
   * `host:port` the kit's webhook receiver listens on, which the target must be able to reach
   * (default: 127.0.0.1 with a free port, for a target on this machine's loopback; the webhook
   * stage is skipped for another target without it).
   */
  webhookReceiver?: string;
  /** Base URL the target calls to reach the receiver, when it is not `http://<webhookReceiver>` (a tunnel, a container's name for the host). */
  webhookUrl?: string;
  /** The secret the target signs its webhook calls with; signatures are not judged without it. */
  webhookSecret?: string;
  /** Longest wait for a job's last webhook call, from its start (default 60000 ms). */
  webhookDeadlineMs?: number;
  /** Stops the run when it aborts: what ran is reported, the checks not finished are skipped. */
  signal?: AbortSignal;
  /** Headers sent with every request (a gateway's tenant or trace header), by name; not Authorization, Host, Content-Type or framing. */
  headers?: Record<string, string>;
}

export const DEFAULT_MAX_TIME_MS = 300_000;

/** The least severity that fails a run, from a flag, a variable or an option; a UsageError for anything else. */
export function parseFailOn(name: string, value: string | undefined): Severity | undefined {
  if (value === undefined) return undefined;
  if (!SEVERITIES.includes(value as Severity)) throw new UsageError(`${name} must be one of ${SEVERITIES.join(", ")} (got ${JSON.stringify(value)})`);
  return value as Severity;
}

/** A limit from a flag, a variable or an option: a whole number of at least 1, or a UsageError naming it. */
export function parseLimit(name: string, value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 1) throw new UsageError(`${name} must be a whole number of at least 1 (got ${JSON.stringify(value)})`);
  return number;
}

/** Headers the kit sets itself: the key goes in --api-key, and the checks choose the media type and the framing. */
const OWN_HEADERS = new Set(["authorization", "host", "content-type", "content-length", "transfer-encoding", "connection"]);

/** `Name: value` lines as headers, or a UsageError naming the line at fault. */
export function parseHeaders(name: string, lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*([^\u0000-\u0008\u000a-\u001f\u007f]*?)[ \t]*$/.exec(line);
    if (!match) throw new UsageError(`${name} must be "Name: value", a header name and a value without control characters (got ${JSON.stringify(line)})`);
    if (OWN_HEADERS.has(match[1]!.toLowerCase())) throw new UsageError(`${name} cannot set ${match[1]}: the kit sets it${match[1]!.toLowerCase() === "authorization" ? " (pass the key with --api-key)" : ""}`);
    headers[match[1]!] = match[2]!;
  }
  return headers;
}

/**
 * The options other than the service and the base URL, from the flags of the command line or the
 * CONTRACT_* variables: one list for both, so that each variable matches its flag. `value` reads a
 * flag or its variable; `named` says how a bad one is named.
 */
export function readSettings(value: (flag: string, variable: string) => string | undefined, named: (flag: string, variable: string) => string): Omit<ContractTestOptions, "service" | "baseUrl"> {
  const limit = (flag: string, variable: string) => parseLimit(named(flag, variable), value(flag, variable));
  const knownDifferences = value("known-differences", "CONTRACT_KNOWN_DIFFERENCES");
  const names = (flag: string, variable: string) => value(flag, variable)?.split(/[,\n]/).map((item) => item.trim()).filter(Boolean);
  const headers = value("header", "CONTRACT_HEADERS")?.split("\n").filter((line) => line.trim() !== "");
  return {
    include: names("include", "CONTRACT_INCLUDE"),
    exclude: names("exclude", "CONTRACT_EXCLUDE"),
    headers: headers && parseHeaders(named("header", "CONTRACT_HEADERS"), headers),
    apiKey: value("api-key", "CONTRACT_API_KEY"),
    fixtures: value("fixtures", "CONTRACT_FIXTURES"),
    level: value("level", "CONTRACT_LEVEL") as Level | undefined,
    timeoutMs: limit("timeout", "CONTRACT_TIMEOUT"),
    maxTimeMs: limit("max-time", "CONTRACT_MAX_TIME"),
    maxAnswerBytes: limit("max-answer-bytes", "CONTRACT_MAX_ANSWER_BYTES"),
    generate: limit("generate", "CONTRACT_GENERATE"),
    seed: parseSeed(value("seed", "CONTRACT_SEED")),
    failOn: parseFailOn(named("fail-on", "CONTRACT_FAIL_ON"), value("fail-on", "CONTRACT_FAIL_ON")),
    webhookSecret: value("webhook-secret", "CONTRACT_WEBHOOK_SECRET"),
    webhookReceiver: value("webhook-receiver", "CONTRACT_WEBHOOK_RECEIVER"),
    webhookUrl: value("webhook-url", "CONTRACT_WEBHOOK_URL"),
    webhookDeadlineMs: limit("webhook-deadline", "CONTRACT_WEBHOOK_DEADLINE"),
    ...(knownDifferences ? { knownDifferences: loadKnownDifferences(knownDifferences) } : {}),
  };
}

/**
 * Options from CONTRACT_SERVICE, CONTRACT_BASE_URL and the variables of `readSettings`
 * (CONTRACT_API_KEY, CONTRACT_FIXTURES, CONTRACT_LEVEL, CONTRACT_TIMEOUT, ...), for runs
 * configured by the environment (e.g. inside vitest).
 */
export function optionsFromEnv(env: Record<string, string | undefined> = process.env): ContractTestOptions {
  const { CONTRACT_SERVICE: service, CONTRACT_BASE_URL: baseUrl } = env;
  if (!service || !baseUrl) throw new UsageError("CONTRACT_SERVICE and CONTRACT_BASE_URL must be set");
  return { service, baseUrl, ...readSettings((_flag, variable) => env[variable] || undefined, (_flag, variable) => variable) };
}

/** Whether a host name is this machine's loopback: a target there reaches a receiver on 127.0.0.1. */
function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** `host:port` (an IPv6 host in brackets), or a UsageError naming the option. */
function parseHostPort(name: string, value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[3]);
  if (!match || port > 65535) throw new UsageError(`${name} must be host:port, e.g. 127.0.0.1:0 or [::1]:8080 (got ${JSON.stringify(value)})`);
  return { host: match[1] ?? match[2]!, port };
}

/** Where the webhook stage's receiver listens and what the target calls, or why there is none (absent at levels without the stage). */
export function webhookStageSettings(options: ContractTestOptions, level: Level, target: URL): Omit<WebhookStageOptions, "maxBodyBytes" | "runDeadline"> | undefined {
  if (level !== "behavior" && level !== "webhooks") return undefined;
  const deadlineMs = parseLimit("webhookDeadlineMs", options.webhookDeadlineMs) ?? DEFAULT_WEBHOOK_DEADLINE_MS;
  const secret = options.webhookSecret || undefined;
  const publicUrl = options.webhookUrl;
  if (publicUrl !== undefined && !parseHttpUrl(publicUrl)) {
    throw new UsageError(`webhook URL must be an http or https URL (got ${JSON.stringify(publicUrl)})`);
  }
  let listen: { host: string; port: number } | undefined;
  if (options.webhookReceiver !== undefined) listen = parseHostPort("webhook receiver", options.webhookReceiver);
  else if (isLoopback(target.hostname)) listen = { host: target.hostname.replace(/^\[|\]$/g, "") === "::1" ? "::1" : "127.0.0.1", port: 0 };
  if (!listen) {
    const unavailable = `the target (${target.hostname}) is not on this machine: give a receiver address it can reach (--webhook-receiver host:port, and --webhook-url when it calls another name)`;
    if (level === "webhooks") throw new UsageError(unavailable);
    return { unavailable, secret, deadlineMs };
  }
  if ((listen.host === "0.0.0.0" || listen.host === "::") && publicUrl === undefined) throw new UsageError(`a receiver listening on every interface (${listen.host}) needs --webhook-url: the address the target calls`);
  return { receiver: { ...listen, ...(publicUrl ? { publicUrl } : {}) }, secret, deadlineMs };
}

/** A seed for a run that was given none; it is printed so that the run can be repeated. */
export function randomSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}

/** Parses a seed from a flag or variable: a whole number, or a UsageError. */
export function parseSeed(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\s*-?\d+\s*$/.test(value)) throw new UsageError(`--seed must be a whole number (got ${JSON.stringify(value)})`);
  return Number(value);
}

/** The fixtures of a run, checked; a key left as init's placeholder is named in the same message as the ids left so. */
function resolveFixtures({ fixtures: given, apiKey, service }: ContractTestOptions): Fixtures | undefined {
  const raw = typeof given === "string" ? readFixturesFile(given) : given;
  const keys = isObject(raw) && isObject(raw.api_keys) ? raw.api_keys : {};
  const keyLeft = !apiKey && typeof keys[service] === "string" && PLACEHOLDER.test(keys[service]);
  const keyMessage = `api_keys.${service} in the fixtures still holds its placeholder from contract-test init: put a key your server accepts there, or pass --api-key`;
  let fixtures: Fixtures | undefined;
  try {
    fixtures = raw === undefined ? undefined : checkFixtures(raw, typeof given === "string" ? `fixtures file ${given}` : undefined);
  } catch (error) {
    throw keyLeft && error instanceof UsageError ? new UsageError(`${error.message}; and ${keyMessage}`) : error;
  }
  if (keyLeft) throw new UsageError(keyMessage);
  return fixtures;
}

/** A run's options checked and resolved; the webhook stage's settings are absent at levels that do not run it. */
export function resolveOptions(options: ContractTestOptions) {
  const known = services();
  if (!known.includes(options.service)) throw new UsageError(`service must be one of ${known.join(", ")} (got ${JSON.stringify(options.service)})`);
  const level = options.level ?? "schema";
  if (!LEVELS.includes(level)) throw new UsageError(`level must be one of ${LEVELS.join(", ")} (got ${JSON.stringify(level)})`);
  const url = parseHttpUrl(options.baseUrl);
  if (!url) throw new UsageError(`base URL ${JSON.stringify(maskUrl(options.baseUrl))} is not an http or https URL`);
  const fixtures = resolveFixtures(options);
  if (level === "behavior") requireServiceFixtures(fixtures, options.service);
  const apiKey = options.apiKey || (fixtures?.api_keys as Partial<Record<Service, string>> | undefined)?.[options.service];
  if (!apiKey) throw new UsageError(`an API key is needed: pass --api-key or set api_keys.${options.service} in the fixtures`);
  const limits: RunLimits = {
    timeoutMs: parseLimit("timeoutMs", options.timeoutMs) ?? DEFAULT_LIMITS.timeoutMs,
    maxTimeMs: parseLimit("maxTimeMs", options.maxTimeMs) ?? DEFAULT_MAX_TIME_MS,
    maxAnswerBytes: parseLimit("maxAnswerBytes", options.maxAnswerBytes) ?? DEFAULT_LIMITS.maxAnswerBytes,
  };
  const generate = parseLimit("generate", options.generate);
  if (generate !== undefined && level === "http") throw new UsageError("generate applies to the schema and behavior levels, not to http");
  if (options.seed !== undefined && !(Number.isSafeInteger(options.seed) && Math.abs(options.seed) <= 0x7fffffff)) {
    throw new UsageError(`seed must be a whole number between -2147483647 and 2147483647 (got ${JSON.stringify(options.seed)})`);
  }
  const seed = options.seed ?? randomSeed();
  const failOn = options.failOn === undefined ? "failure" : parseFailOn("failOn", options.failOn)!;
  const trim = (href: string) => href.replace(/\/+$/, "");
  // fetch refuses URLs with credentials, and the APIs authenticate by Bearer key.
  const bare = new URL(url.href);
  bare.username = bare.password = "";
  return {
    level,
    fixtures,
    apiKey,
    // Where requests go, and the base URL as it may be printed.
    baseUrl: trim(bare.href),
    shownBaseUrl: trim(maskUrl(url.href)),
    limits,
    generate,
    seed,
    failOn,
    redact: redactor([apiKey, url.password, url.username && !url.password ? url.username : undefined, options.webhookSecret]),
    headers: options.headers ?? {},
    webhooks: webhookStageSettings(options, level, url),
  };
}
