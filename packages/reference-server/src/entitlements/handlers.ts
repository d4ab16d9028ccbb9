import type { operations } from "@api-contracts/entitlements-client";
import { truncate } from "@api-contracts/contract-core";
import type { ApiParts, Implementation } from "../implementation.js";
import { served, type AnswerOf, type ReadOf } from "../typing.js";
import { webhookSender } from "../webhooks.js";
import { EntitlementsError, EntitlementsStore } from "./store.js";

type ErrorBody = Extract<AnswerOf<operations["checkAccess"]>, { status: 400 }>["body"];
/** The statuses an operation documents with the error body. */
type ErrorStatus<Op> = Extract<AnswerOf<Op>, { body: ErrorBody }>["status"];

/**
 * The documented answer of a refusal by the store (an unknown customer, a lock already held): the
 * API's error body. Anything else is a defect, answered 500.
 */
function refusal<S extends EntitlementsError["status"]>(err: unknown, env: ErrorBody["env"], statuses: ReadonlyArray<S>): { status: S; body: ErrorBody } {
  if (err instanceof EntitlementsError && (statuses as readonly number[]).includes(err.status)) {
    return { status: err.status as S, body: { message: truncate(err.message), code: err.code, env } };
  }
  throw err;
}

/** The entitlements API: check (and its legacy alias), track (and alias), finalize; balance events to the endpoint, when given. */
export function entitlementsApi({ fixtures, now, limits, webhooks, contract }: ApiParts): Implementation {
  const store = new EntitlementsStore(fixtures.world.entitlements, now, limits);
  const env = store.env;
  const endpoint = webhooks.url;
  const deliverer = endpoint === undefined ? undefined : webhookSender(contract, webhooks);
  // Sent after the answer is decided and never awaited: a slow endpoint cannot slow a request.
  if (deliverer) store.onLimitReached = (data) => void deliverer.send({ url: endpoint!, payload: { type: "balances.limit_reached", data } });

  /**
   * Turns the store's refusals into error answers; `statuses` lists the error statuses the
   * operation documents, so an undocumented one cannot be sent.
   */
  const guarded =
    <Op>(statuses: ReadonlyArray<ErrorStatus<Op>>, run: (read: ReadOf<Op>) => AnswerOf<Op>) =>
    (read: ReadOf<Op>): AnswerOf<Op> => {
      try {
        return run(read);
      } catch (err) {
        return refusal(err, env, statuses as ReadonlyArray<EntitlementsError["status"]>) as AnswerOf<Op>;
      }
    };

  const check = guarded<operations["checkAccess"]>([400, 404, 409, 429], (read) => {
    // A comma list, or the parameter repeated; white space around an item is the live service's to ignore.
    const expand = new Set([read.query.expand ?? []].flat().flatMap((list) => list.split(",")).map((item) => item.trim()));
    const body = store.check(read.body, { expandBalanceFeature: expand.has("balance.feature"), expandFlagFeature: expand.has("flag.feature") });
    return { status: 200, body };
  });
  const track = guarded<operations["trackUsage"]>([400, 404, 409, 429], (read) => ({ status: 200, body: store.track(read.body) }));
  const finalize = guarded<operations["finalizeLock"]>([400], (read) => {
    store.finalize(read.body);
    return { status: 200, body: { success: true } };
  });

  return {
    handlers: served<operations>({ checkAccess: check, checkAccessLegacy: check, trackUsage: track, trackUsageLegacy: track, finalizeLock: finalize }),
    // The environment of the key, which every error body names.
    context: { env },
    close: () => deliverer?.close(),
  };
}
