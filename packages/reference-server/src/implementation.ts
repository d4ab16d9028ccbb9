// What the wiring of the server (server.ts) and each API's implementation (its handlers) agree on,
// apart from both, so that neither imports the other to name it.
import type { ApiContract, WordingContext } from "@api-contracts/contract-core";
import type { SeededFixtures } from "./fixtures.js";
import type { Handler, HttpLimits } from "./http.js";
import type { StateLimits } from "./state.js";
import type { WebhookLimits, WebhookSettings } from "./webhooks.js";

/** Every limit the server enforces on clients; each defaults as the README's limits table says. */
export type ReferenceLimits = HttpLimits & StateLimits & WebhookLimits;

/** What one API's implementation is built from. */
export interface ApiParts {
  fixtures: SeededFixtures;
  now: () => number;
  limits: ReferenceLimits;
  webhooks: WebhookSettings;
  /** The API's contract, on the server's clock: it decides every request before a handler sees it. */
  contract: ApiContract;
  /** Base of the URLs the API hands out: `publicUrl`, else the address the server listens at; never a request's `Host` header. */
  base(): string;
}

/** One API as this server implements it: its business rules, by operationId, and what closes with the server. */
export interface Implementation {
  handlers: Readonly<Record<string, Handler>>;
  /** Placeholders of its error bodies that the world sets (the facts' `errors.placeholders`). */
  context?: WordingContext;
  close(): Promise<void> | void;
}

