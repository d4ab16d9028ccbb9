// Fault injection in front of the upstream, once a request has been read and judged: the rule that
// fires on it (contract-core's FaultInjector) acts with contract-core's fault effects, and each
// fired rule is an `injected` report line.
import type { ServerResponse } from "node:http";
import { type OpenApiValidators } from "@api-contracts/contract-core";
import { FaultInjector, delayAnswer, hangConnection, resetConnection, sendInjected, type FaultDecision } from "@api-contracts/contract-core/server";
import type { Exchange, Ledger } from "./ledger.js";
import type { Settings } from "./options.js";
import { VIOLATIONS_HEADER } from "./wire.js";

export type FaultStage = ReturnType<typeof faultStage>;

/** Injects the faults of `faults` (none without it) in front of the upstream. */
export function faultStage({ faults, api, requestTimeout }: Settings, validators: OpenApiValidators, ledger: Ledger) {
  const service = api.name;
  const injector = faults && new FaultInjector(faults.rules, { validators, service, seed: faults.seed ?? 0 });

  /** Marks an exchange a rule fired on, in the report and through `onFault`. */
  const record = (ex: Exchange, operationId: string, decision: FaultDecision): void => {
    const { answer: made, ...what } = decision;
    const injected = { ...what, ...(made ? { status: made.status } : {}) };
    const line = ledger.injected(ex, operationId, injected);
    faults?.onFault?.({ service, operationId, method: line.method, path: line.path, ...injected });
  };

  /**
   * Reports a fired `slow-body` rule once its exchange shows whether the trickle applies: an answer
   * that streams through, or one the proxy gives itself, passes at its own pace, so only the wait the
   * rule asked for (if any) was injected.
   */
  const settleSlowBody = (ex: Exchange, trickled: boolean): void => {
    const fired = ex.slowBody;
    if (!fired) return;
    ex.slowBody = undefined;
    if (trickled) return record(ex, fired.operationId, fired.decision);
    const { fault: _notApplied, ...waited } = fired.decision;
    if (waited.latencyMs > 0) record(ex, fired.operationId, waited);
  };

  /**
   * Forwards a judged request, or first lets the rule that fires on it act: wait, then reset, hang,
   * answer in the upstream's place (its documented answer, not judged), or forward and trickle.
   */
  const forwardOrInject = async (ex: Exchange, res: ServerResponse, forward: () => void): Promise<void> => {
    const operationId = ex.operation?.operationId;
    const decision = operationId === undefined ? undefined : injector?.decide(operationId);
    if (!decision) return forward();
    if (decision.fault === "slow-body") ex.slowBody = { operationId: operationId!, decision };
    else record(ex, operationId!, decision);
    if (!(await delayAnswer(res, decision.latencyMs))) {
      // The client left during the wait: no answer reached it, and what it sent is reported with status 0.
      settleSlowBody(ex, false);
      return void ledger.finish(ex, 0, []);
    }
    if (decision.fault === "reset" || decision.fault === "hang") {
      // No answer reaches the client: what it sent is reported with status 0.
      ledger.finish(ex, 0, []);
      return decision.fault === "reset" ? resetConnection(res) : hangConnection(res, requestTimeout);
    }
    if (!decision.answer) return forward();
    res.setHeader(VIOLATIONS_HEADER, String(ledger.finish(ex, decision.answer.status, [], true)));
    sendInjected(res, decision.answer);
  };

  return { injects: injector !== undefined, settleSlowBody, forwardOrInject };
}
