// The proxy's options, and the settings every stage reads: the options with their defaults applied.
import { getApi, parseHttpUrl, parseUrl, type ApiDefinition, type ApiName, type Coverage, type KnownDifference } from "@api-contracts/contract-core";
import { type FaultsOptions, type LingerBounds } from "@api-contracts/contract-core/server";
import type { Violation } from "./report.js";

export interface ContractProxyOptions {
  /** The API the traffic speaks: the name of any API contract-core's registry lists (`listApis()`). */
  service: ApiName;
  /** Base URL of the implementation to forward to: `http://127.0.0.1:4011`. A path in it prefixes every request path. */
  upstream: string;
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port to listen on; `0` picks a free one. Default `0`. */
  port?: number;
  /** Refuse requests and replace answers that break the contract, instead of only reporting them. Default `false`. */
  strict?: boolean;
  /** File that each violation is appended to as one JSON line. */
  report?: string;
  /** File the coverage of the traffic is written to, as one JSON document (contract-core's coverage format), when the proxy closes. */
  coverage?: string;
  /** Largest body, in bytes, read and judged in either direction; larger ones pass through unjudged. Default 1 MiB. */
  judgeLimit?: number;
  /** Longest silence allowed from the upstream (before its answer and between its chunks), in milliseconds. Default 30 s. */
  upstreamTimeout?: number;
  /** Time allowed for a client's request headers to arrive, in milliseconds. Default 10 s. */
  headersTimeout?: number;
  /** Time allowed for a client's whole request to arrive, in milliseconds. Default 30 s. */
  requestTimeout?: number;
  /** How long and how much a closing connection reads of what its client still sends. Default 64 MiB, 5 s. */
  linger?: LingerBounds;
  /**
   * Differences you have accepted (contract-core's known-differences format): a violation every
   * error of which an entry explains is reported with `known`, is not counted as a violation and,
   * in strict mode, passes through. `operation` is the operationId (or `METHOD /path` where no
   * operation serves the request), `check` the direction (`request` or `response`), and `reason`
   * a substring of one error: `<in><pointer> <message>`, after the status for a response.
   */
  knownDifferences?: readonly KnownDifference[];
  /** Called with each report line as it is written (already redacted and bounded). */
  onViolation?: (violation: Violation) => void;
  /**
   * Latency and faults to inject in front of the upstream (contract-core's faults format): each
   * fired rule is an `injected` report line; the answers it makes up are not the upstream's and are
   * never judged as its violations.
   */
  faults?: FaultsOptions;
  /**
   * Relay and judge the API's webhook calls: a second server, on `host` (default the proxy's) and
   * `port` (default a free one), takes the calls the upstream makes (point the webhook at
   * {@link ContractProxy.webhooks}), judges each and forwards it unchanged to `to`, the call's path
   * and query appended to its path. With `secret`, signatures are judged too.
   */
  webhooks?: { to: string; host?: string; port?: number; secret?: string };
}

export interface ContractProxy {
  url: string;
  port: number;
  /** With `webhooks`: the URL to point the API's webhooks at. */
  webhooks?: string;
  /** The most recent report lines, oldest first (at most 1,000; the report file keeps them all). */
  violations: readonly Violation[];
  counts: Readonly<ProxyCounts>;
  /** Known differences no violation has matched so far; written to the report as `stale` lines on close. */
  stale(): KnownDifference[];
  /** What the traffic so far exercised: per operation, the documented statuses answered and the request members sent. */
  coverage(): Coverage;
  close(): Promise<void>;
}

export interface ProxyCounts {
  exchanges: number;
  violations: number;
  /** Violations a known difference explains: reported, not counted in `violations`. */
  known: number;
  /** Bodies larger than the judging limit, passed through unjudged. */
  notJudged: number;
  /** Exchanges a faults rule fired on. */
  injected: number;
  /** Webhook calls relayed (`webhooks`). */
  deliveries: number;
}

/** An http or https URL, or a TypeError naming the option (not the URL, which may hold credentials). */
function httpUrl(text: string, option: string): URL {
  const url = parseHttpUrl(text);
  if (!url) throw new TypeError(`${option} must be an http or https URL, got ${parseUrl(text)?.protocol ?? "no URL"}`);
  return url;
}

/** The options with their defaults applied, and the URLs parsed. */
export type Settings = ContractProxyOptions &
  Required<Pick<ContractProxyOptions, "host" | "port" | "strict" | "judgeLimit" | "upstreamTimeout" | "headersTimeout" | "requestTimeout">> & { api: ApiDefinition; upstreamUrl: URL; webhooksTo?: URL };

/** The settings of a proxy started with `options`; throws for an unknown service, and a TypeError for a URL that is not http(s). */
export function settingsOf(options: ContractProxyOptions): Settings {
  const api = getApi(options.service);
  const upstreamUrl = httpUrl(options.upstream, "upstream");
  const webhooksTo = options.webhooks && httpUrl(options.webhooks.to, "webhooks.to");
  // The edge server keeps the headers' deadline within the whole request's.
  const { host = "127.0.0.1", port = 0, strict = false, judgeLimit = 1024 * 1024 } = options;
  const { upstreamTimeout = 30_000, headersTimeout = 10_000, requestTimeout = 30_000 } = options;
  return { ...options, api, upstreamUrl, webhooksTo, host, port, strict, judgeLimit, upstreamTimeout, headersTimeout, requestTimeout };
}
