// The proxy's lifecycle: its server listens with the deadlines of a server facing untrusted clients
// (contract-core's edge server), the webhook relay beside it, and closing ends every connection, then
// writes the last of the ledger.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Pool } from "undici/index.js";
import { MAX_LATENCY_MS, type ApiContract } from "@api-contracts/contract-core";
import { createEdgeServer, listen } from "@api-contracts/contract-core/server";
import type { Ledger } from "./ledger.js";
import type { Settings } from "./options.js";
import { startWebhookRelay, type StartedJobs } from "./webhooks.js";
import { stopServer } from "./wire.js";

/**
 * Listens, with the webhook relay when `jobs` are followed; `close` stops both, writes the ledger's
 * last lines and the coverage, then frees the pool. `injects`: faults rules may hold an exchange
 * silent for up to contract-core's MAX_LATENCY_MS.
 */
export async function serve(settings: Settings, handle: (req: IncomingMessage, res: ServerResponse) => void, contract: ApiContract, ledger: Ledger, pool: Pool, injects: boolean, jobs: StartedJobs | undefined): Promise<{ url: string; port: number; webhooks?: string; close(): Promise<void> }> {
  const server = createEdgeServer(
    {
      requestTimeoutMs: settings.requestTimeout,
      headersTimeoutMs: settings.headersTimeout,
      // A client that stops reading holds its socket no longer than the upstream may keep silent, after
      // the longest wait a faults rule may inject: no byte flows during that wait either.
      idleTimeoutMs: settings.upstreamTimeout + (injects ? MAX_LATENCY_MS : 0) + 5_000,
      ...(settings.linger ? { linger: settings.linger } : {}),
    },
    handle,
    (problem) => contract.reply(problem),
  );
  const where = await listen(server, settings.port, settings.host);
  const webhookRelay =
    jobs &&
    (await startWebhookRelay(settings, contract, jobs, ledger).catch(async (error: unknown) => {
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
