import type { FastifyInstance } from "fastify";
import type { paths } from "@api-contracts/entitlements-client";
import { truncate } from "@api-contracts/contract-core";
import type { SeededFixtures, World } from "../fixtures.js";
import { createApp, Refusals, registerOperation, type HandlerInput, type HttpLimits } from "../http.js";
import { contractOf } from "../spec.js";
import type { AnswerOf, QueryOf, RequestBody } from "../typing.js";
import type { StateLimits } from "../state.js";
import { webhookSender, type WebhookSettings } from "../webhooks.js";
import { EntitlementsError, EntitlementsStore } from "./store.js";

type CheckOp = paths["/v1/balances.check"]["post"];
type TrackOp = paths["/v1/balances.track"]["post"];
type FinalizeOp = paths["/v1/balances.finalize"]["post"];
type ErrorBody = Extract<AnswerOf<CheckOp>, { status: 400 }>["body"];
type Input<Op> = HandlerInput<RequestBody<Op>, QueryOf<Op>, object>;
/** The statuses an operation documents with the error body. */
type ErrorStatus<Op> = Extract<AnswerOf<Op>, { body: ErrorBody }>["status"];

/**
 * The documented answer of a refusal by the store (an unknown customer, a lock already held): the
 * API's error body. Anything else is a defect and goes to the 500 handler.
 */
function refusal<S extends EntitlementsError["status"]>(err: unknown, env: ErrorBody["env"], statuses: ReadonlyArray<S>): { status: S; body: ErrorBody } {
  if (err instanceof EntitlementsError && (statuses as readonly number[]).includes(err.status)) {
    return { status: err.status as S, body: { message: truncate(err.message), code: err.code, env } };
  }
  throw err;
}

interface EntitlementsAppOptions {
  fixtures: SeededFixtures;
  now: () => number;
  http: HttpLimits;
  state: StateLimits;
  /** Balance events: the endpoint they go to (none: no calls) and its `whsec_` secret. */
  webhooks: WebhookSettings & { url?: string };
}

/** The entitlements API: check (and its legacy alias), track (and alias), finalize. */
export function entitlementsApp({ fixtures, now, http, state, webhooks }: EntitlementsAppOptions): FastifyInstance {
  const world: World = fixtures.world;
  const store = new EntitlementsStore(world.entitlements, now, state);
  const env = store.env;
  const contract = contractOf("entitlements", now);
  const refusals = new Refusals(contract, fixtures.api_keys.entitlements, { env });
  const app = createApp(refusals, http);
  const endpoint = webhooks.url;
  if (endpoint !== undefined) {
    const deliverer = webhookSender(contract.validators, webhooks);
    // Sent after the answer is decided and never awaited: a slow endpoint cannot slow a request.
    store.onLimitReached = (data) => void deliverer.send({ url: endpoint, payload: { type: "balances.limit_reached", data } });
    app.addHook("onClose", () => deliverer.close());
  }

  /**
   * Turns the store's refusals into error answers; `statuses` lists the error statuses the
   * operation documents, so an undocumented one cannot be sent.
   */
  const guarded =
    <Op>(statuses: ReadonlyArray<ErrorStatus<Op>>, run: (input: Input<Op>) => AnswerOf<Op>) =>
    (input: Input<Op>): AnswerOf<Op> => {
      try {
        return run(input);
      } catch (err) {
        return refusal(err, env, statuses as ReadonlyArray<EntitlementsError["status"]>) as AnswerOf<Op>;
      }
    };

  const check = guarded<CheckOp>([400, 404, 409, 429], (input) => {
    const expand = new Set((input.query.expand ?? "").split(",").filter((part) => part !== ""));
    const body = store.check(input.body, { expandBalanceFeature: expand.has("balance.feature"), expandFlagFeature: expand.has("flag.feature") });
    return { status: 200, body };
  });
  const track = guarded<TrackOp>([400, 404, 409, 429], (input) => ({ status: 200, body: store.track(input.body) }));
  const finalize = guarded<FinalizeOp>([400], (input) => {
    store.finalize(input.body);
    return { status: 200, body: { success: true } };
  });

  registerOperation(app, refusals, "POST", "/v1/balances.check", check);
  registerOperation(app, refusals, "POST", "/v1/check", check);
  registerOperation(app, refusals, "POST", "/v1/balances.track", track);
  registerOperation(app, refusals, "POST", "/v1/track", track);
  registerOperation(app, refusals, "POST", "/v1/balances.finalize", finalize);
  return app;
}
