import { contractOf, getApi, listApis, type ApiName } from "@api-contracts/contract-core";
import { startMockServer, type MockServerOptions, type RunningServer } from "@api-contracts/mock-server";
import type { Service } from "@api-contracts/reference-server";

export type { RunningServer };

/** The mock's `host`, `dynamic`, `seed`, `cors`, `faults` and `onWebhookReport`; the reference implementation takes `host` and `onWebhookReport` only. */
export interface ApiServerOptions extends Pick<MockServerOptions, "host" | "dynamic" | "seed" | "cors" | "faults" | "onWebhookReport"> {
  api: ApiName;
  /** Default: the API's mock port from the registry; `0` picks a free one. */
  port?: number;
  /** Serve the stateful reference implementation instead of the documented examples. */
  stateful?: boolean;
  /** Time allowed for a whole request, body included, in milliseconds; default 5 s (the mock's and the reference implementation's). */
  requestTimeout?: number;
  /**
   * Signs the webhook calls made for requests that carry a webhook (web data crawls): the mock's
   * documented examples, or the reference implementation's crawl calls. An API whose requests carry
   * none makes no call and does not read it.
   */
  webhookSecret?: string;
}

/** Whether any request of the API starts a job with a webhook (its calls are then signed with the secret). */
function callsWebhooks(api: ApiName): boolean {
  const contract = contractOf(api);
  return contract.validators.listOperations().some((operation) => contract.takesWebhook(operation));
}

/**
 * Serves one API: its mock, or with `stateful` the reference implementation, on the same port.
 * The reference implementation (and the docs, for the whole stack) are loaded only when asked for:
 * `api-mock` without `--stateful` never pays for their imports.
 */
export async function startApiServer({ api, stateful, webhookSecret, ...options }: ApiServerOptions): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? getApi(api).mockPort;
  const secret = webhookSecret !== undefined && callsWebhooks(api) ? { webhookSecret } : {};
  if (stateful) {
    if (options.faults) throw new TypeError("faults are injected by the mocks, not by the stateful reference implementation");
    const limits = options.requestTimeout !== undefined ? { limits: { requestTimeoutMs: options.requestTimeout } } : {};
    const { startReferenceServer } = await import("@api-contracts/reference-server");
    return startReferenceServer({ service: api as Service, host, port, ...limits, ...secret, ...(options.onWebhookReport ? { onWebhookReport: options.onWebhookReport } : {}) });
  }
  return startMockServer({ ...options, service: api, host, port, ...secret });
}

export interface LocalStackOptions {
  host?: string;
  /** Port per API name; an API not named gets its registry port. `0` picks a free one. */
  ports?: Partial<Record<ApiName, number>>;
  /** Port of the docs; default 4000. */
  docsPort?: number;
  /** Serve the reference implementation instead of the mocks. */
  stateful?: boolean;
  /**
   * Hosts the docs console's relay may send to besides this machine (names or IP addresses); by
   * default it sends to loopback addresses only.
   */
  allowRelayHosts?: readonly string[];
}

export interface LocalStack {
  /** Every server started, by name: each API's, then `docs`. */
  servers: Array<{ name: string; url: string }>;
  close(): Promise<void>;
}

/** Starts servers side by side; if one fails to start, stops the others and throws its error. */
export async function startTogether(named: Array<{ name: string; start: () => Promise<RunningServer> }>): Promise<LocalStack> {
  const settled = await Promise.allSettled(named.map((entry) => entry.start()));
  const running = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const close = async () => {
    await Promise.allSettled(running.map((s) => s.close()));
  };
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) {
    await close();
    throw failed.reason;
  }
  return { servers: named.map(({ name }, i) => ({ name, url: running[i]!.url })), close };
}

/**
 * A server listening on every interface (`--host 0.0.0.0`), as a browser on this machine reaches it:
 * at loopback, which the docs' relay sends to without being told.
 */
function onThisMachine(url: string): string {
  const parsed = new URL(url);
  if (parsed.hostname === "0.0.0.0") parsed.hostname = "127.0.0.1";
  if (parsed.hostname === "[::]") parsed.hostname = "[::1]";
  return parsed.origin;
}

/**
 * Starts every registered API (mock or reference implementation), then the docs, which are told
 * where each API runs: their console targets it, and their pages name it. If one fails, stops the others.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const host = options.host ?? "127.0.0.1";
  const stateful = options.stateful ?? false;
  const apis = await startTogether(
    listApis().map(({ name }) => ({
      name,
      start: () => startApiServer({ api: name, host, port: options.ports?.[name], stateful }),
    })),
  );
  const targets = Object.fromEntries(apis.servers.map(({ name, url }) => [name, stateful ? { reference: onThisMachine(url) } : { mock: onThisMachine(url) }]));
  const docs = await import("@api-contracts/docs/server")
    .then(({ startDocsServer }) => startDocsServer({ host, port: options.docsPort ?? 4000, targets, allowRelayHosts: options.allowRelayHosts ?? [] }))
    .catch(async (error: unknown) => {
      await apis.close();
      throw error;
    });
  return {
    servers: [...apis.servers, { name: "docs", url: docs.url }],
    close: async () => {
      await Promise.allSettled([apis.close(), docs.close()]);
    },
  };
}
