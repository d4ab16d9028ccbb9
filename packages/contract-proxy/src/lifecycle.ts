// The proxy's lifecycle: its server listens with the deadlines of a server facing untrusted clients
// (contract-core's edge server), the webhook relay beside it, and closing ends every connection, then
// writes the last of the ledger.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Pool } from "undici/index.js";
import { MAX_LATENCY_MS, createEdgeServer, listen, type ContractErrors, type LingerBounds } from "@api-contracts/contract-core";
import type { Ledger } from "./ledger.js";
import { startWebhookRelay, type StartedJobs } from "./webhooks.js";
import { stopServer } from "./wire.js";

export interface ServeOptions {
  host: string;
  port: number;
  errors: ContractErrors;
  ledger: Ledger;
  pool: Pool;
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  /** Whether faults rules may hold an exchange silent for up to contract-core's MAX_LATENCY_MS. */
  injects: boolean;
  limit: number;
  upstreamTimeout: number;
  headersTimeout: number;
  requestTimeout: number;
  linger?: LingerBounds;
  webhooks?: { to: URL; jobs: StartedJobs; host: string; port: number; secret?: string };
}

/** Listens, with the webhook relay when asked; `close` stops both, writes the ledger's last lines and the coverage, then frees the pool. */
export async function serve(options: ServeOptions): Promise<{ url: string; port: number; webhooks?: string; close(): Promise<void> }> {
  const { ledger, pool, webhooks } = options;
  const server = createEdgeServer(
    {
      requestTimeoutMs: options.requestTimeout,
      headersTimeoutMs: options.headersTimeout,
      // A client that stops reading holds its socket no longer than the upstream may keep silent, after
      // the longest wait a faults rule may inject: no byte flows during that wait either.
      idleTimeoutMs: options.upstreamTimeout + (options.injects ? MAX_LATENCY_MS : 0) + 5_000,
      ...(options.linger ? { linger: options.linger } : {}),
    },
    options.handle,
    (problem) => options.errors.reply(problem),
  );
  const where = await listen(server, options.port, options.host);
  const webhookRelay =
    webhooks &&
    (await startWebhookRelay({
      ...webhooks,
      validators: options.errors.validators,
      judgeLimit: options.limit,
      timeoutMs: options.upstreamTimeout,
      headersTimeoutMs: options.headersTimeout,
      requestTimeoutMs: options.requestTimeout,
      onCall: (call) => ledger.delivery(call),
    }).catch(async (error: unknown) => {
      await stopServer(server);
      await pool.destroy();
      throw error;
    }));
  return {
    ...where,
    ...(webhookRelay ? { webhooks: webhookRelay.url } : {}),
    close: async () => {
      let error = await stopServer(server);
      try {
        ledger.close();
      } catch (writing) {
        error ??= writing as Error;
      }
      await Promise.all([pool.destroy(), webhookRelay?.close()]);
      if (error) throw error;
    },
  };
}
