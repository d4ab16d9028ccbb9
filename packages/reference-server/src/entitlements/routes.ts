import type { FastifyInstance } from "fastify";
import type { paths } from "@api-contracts/entitlements-client";
import type { Fixtures, World } from "../fixtures.js";
import { entitlementsDialect, entitlementsError, type EntitlementsEnv } from "../errors.js";
import { createApp, registerOperation, type HandlerInput, type HttpLimits } from "../http.js";
import { SpecValidators } from "../spec.js";
import type { AnswerOf, QueryOf, RequestBody } from "../typing.js";
import type { StateLimits } from "../state.js";
import { EntitlementsError, EntitlementsStore } from "./store.js";

type CheckOp = paths["/v1/balances.check"]["post"];
type TrackOp = paths["/v1/balances.track"]["post"];
type FinalizeOp = paths["/v1/balances.finalize"]["post"];
type ErrorBody = Extract<AnswerOf<CheckOp>, { status: 400 }>["body"];
type Input<Op> = HandlerInput<RequestBody<Op>, QueryOf<Op>, object>;
/** The statuses an operation documents with the error body. */
type ErrorStatus<Op> = Extract<AnswerOf<Op>, { body: ErrorBody }>["status"];

/** Major versions of `x-api-version` the contract describes (see the parameter in spec/entitlements). */
const SUPPORTED_MAJOR_VERSIONS = new Set([0, 1, 2]);

/** The documented answer of a refusal; anything else is a defect and goes to the 500 handler. */
function refusal<S extends EntitlementsError["status"]>(err: unknown, env: EntitlementsEnv, statuses: ReadonlyArray<S>): { status: S; body: ErrorBody } {
  if (err instanceof EntitlementsError && (statuses as readonly number[]).includes(err.status)) {
    return entitlementsError(err.status, err.code, err.message, env) as { status: S; body: ErrorBody };
  }
  throw err;
}

export interface EntitlementsAppOptions {
  fixtures: Required<Fixtures>;
  now: () => number;
  http: HttpLimits;
  state: StateLimits;
}

/** The entitlements API: check (and its legacy alias), track (and alias), finalize. */
export function entitlementsApp({ fixtures, now, http, state }: EntitlementsAppOptions): { app: FastifyInstance; store: EntitlementsStore } {
  const world: World = fixtures.world;
  const store = new EntitlementsStore(world.entitlements, now, state);
  const env = store.env;
  const words = entitlementsDialect(env, fixtures.api_keys.entitlements);
  const spec = SpecValidators.for("entitlements");
  const app = createApp(words, http);

  const versionCheck = (headers: Record<string, string | undefined>): { status: 400; body: ErrorBody } | null => {
    const version = headers["x-api-version"];
    if (version === undefined) return null;
    const major = Number(version.split(".")[0]);
    return SUPPORTED_MAJOR_VERSIONS.has(major) ? null : (entitlementsError(400, "invalid_api_version", `Unknown API version ${version}`, env) as { status: 400; body: ErrorBody });
  };

  /**
   * Wraps a handler with the version check and turns the store's refusals into error answers;
   * `statuses` lists the error statuses the operation documents, so an undocumented one cannot be sent.
   */
  const guarded =
    <Op>(statuses: ReadonlyArray<ErrorStatus<Op>>, run: (input: Input<Op>) => AnswerOf<Op>) =>
    (input: Input<Op>): AnswerOf<Op> => {
      const bad = versionCheck(input.headers);
      if (bad) return bad as AnswerOf<Op>;
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

  registerOperation(app, spec, words, "POST", "/v1/balances.check", check);
  registerOperation(app, spec, words, "POST", "/v1/check", check);
  registerOperation(app, spec, words, "POST", "/v1/balances.track", track);
  registerOperation(app, spec, words, "POST", "/v1/track", track);
  registerOperation(app, spec, words, "POST", "/v1/balances.finalize", finalize);
  return { app, store };
}
