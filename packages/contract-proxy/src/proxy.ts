// The proxy, composed from its stages: intake reads and judges each request, fault injection may act
// in the upstream's place, relaying forwards it and judges the answer, the proxy's own answers refuse
// or replace what breaks the contract in strict mode, the ledger records it all, and the lifecycle
// listens and closes.
import { ContractErrors, getApi, type ApiName, type Coverage, type FaultsOptions, type KnownDifference, type LingerBounds } from "@api-contracts/contract-core";
import { ownAnswers } from "./answers.js";
import { faultStage } from "./faults.js";
import { intake } from "./intake.js";
import { Judge } from "./judge.js";
import { Ledger, type ProxyCounts } from "./ledger.js";
import { serve } from "./lifecycle.js";
import { relay } from "./relay.js";
import type { Violation } from "./report.js";
import { StartedJobs } from "./webhooks.js";
import { poolTo } from "./wire.js";

export { RECENT_VIOLATIONS, type ProxyCounts } from "./ledger.js";
export { VIOLATIONS_HEADER } from "./wire.js";

export interface ContractProxyOptions {
  /** The API the traffic speaks: `entitlements` or `webdata` (any registered API). */
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
   * a substring of one error as {@link knownReason} writes it.
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
  /** The most recent report lines, oldest first (at most {@link RECENT_VIOLATIONS}). */
  violations: readonly Violation[];
  counts: Readonly<ProxyCounts>;
  /** Known differences no violation has matched so far; written to the report as `stale` lines on close. */
  stale(): KnownDifference[];
  /** What the traffic so far exercised: per operation, the documented statuses answered and the request members sent. */
  coverage(): Coverage;
  close(): Promise<void>;
}

export const DEFAULT_JUDGE_LIMIT = 1024 * 1024;
export const DEFAULT_UPSTREAM_TIMEOUT = 30_000;
export const DEFAULT_HEADERS_TIMEOUT = 10_000;
export const DEFAULT_REQUEST_TIMEOUT = 30_000;
/** Connections kept to the upstream; more requests wait for a free one. */
const UPSTREAM_CONNECTIONS = 256;

/** An http or https URL, or a TypeError naming the option (not the URL, which may hold credentials). */
function httpUrl(text: string, option: string): URL {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url?.protocol !== "http:" && url?.protocol !== "https:") throw new TypeError(`${option} must be an http or https URL, got ${url?.protocol ?? "no URL"}`);
  return url;
}

/** Starts a proxy that forwards every request to `upstream` and judges both directions against the API's description. */
export async function startContractProxy(options: ContractProxyOptions): Promise<ContractProxy> {
  const api = getApi(options.service);
  const upstream = httpUrl(options.upstream, "upstream");
  const webhooksTo = options.webhooks && httpUrl(options.webhooks.to, "webhooks.to");
  const strict = options.strict ?? false;
  const limit = options.judgeLimit ?? DEFAULT_JUDGE_LIMIT;
  const upstreamTimeout = options.upstreamTimeout ?? DEFAULT_UPSTREAM_TIMEOUT;
  const requestTimeout = options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT;
  const headersTimeout = Math.min(options.headersTimeout ?? DEFAULT_HEADERS_TIMEOUT, requestTimeout);
  const errors = new ContractErrors(api);
  const { validators } = errors;
  const judge = new Judge(validators, limit);
  const ledger = new Ledger({ service: api.name, document: validators.document, keyPrefix: api.keyPrefix, report: options.report, coverage: options.coverage, knownDifferences: options.knownDifferences, onViolation: options.onViolation });
  const jobs = webhooksTo && new StartedJobs(validators);
  const pool = poolTo(upstream.origin, UPSTREAM_CONNECTIONS, upstreamTimeout);
  const faults = faultStage({ faults: options.faults, service: api.name, validators, ledger, requestTimeout });
  const answers = ownAnswers({ errors, ledger, faults, strict, upstreamTimeout });
  const forward = relay({ pool, upstream, judge, ledger, answers, faults, jobs, limit, requestTimeout });
  const server = await serve({
    host: options.host ?? "127.0.0.1",
    port: options.port ?? 0,
    errors,
    ledger,
    pool,
    handle: intake({ judge, ledger, answers, faults, forward, strict, limit }),
    injects: faults.injects,
    limit,
    upstreamTimeout,
    headersTimeout,
    requestTimeout,
    ...(options.linger ? { linger: options.linger } : {}),
    ...(webhooksTo && jobs ? { webhooks: { to: webhooksTo, jobs, host: options.webhooks!.host ?? options.host ?? "127.0.0.1", port: options.webhooks!.port ?? 0, secret: options.webhooks!.secret } } : {}),
  });
  return {
    ...server,
    violations: ledger.recent,
    counts: ledger.counts,
    stale: () => ledger.stale(),
    coverage: () => ledger.coverage.report(),
  };
}
