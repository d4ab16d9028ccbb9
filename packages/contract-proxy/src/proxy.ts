// The proxy, composed from its stages: intake reads and judges each request, fault injection may act
// in the upstream's place, relaying forwards it and judges the answer, the proxy's own answers refuse
// or replace what breaks the contract in strict mode, the ledger records it all, and the lifecycle
// listens and closes.
import { contractOf } from "@api-contracts/contract-core";
import { ownAnswers } from "./answers.js";
import { faultStage } from "./faults.js";
import { intake } from "./intake.js";
import { Judge } from "./judge.js";
import { Ledger } from "./ledger.js";
import { serve } from "./lifecycle.js";
import { settingsOf, type ContractProxy, type ContractProxyOptions } from "./options.js";
import { relay } from "./relay.js";
import { StartedJobs } from "./webhooks.js";
import { poolTo } from "./wire.js";

/** Connections kept to the upstream; more requests wait for a free one. */
const UPSTREAM_CONNECTIONS = 256;

/** Starts a proxy that forwards every request to `upstream` and judges both directions against the API's description. */
export async function startContractProxy(options: ContractProxyOptions): Promise<ContractProxy> {
  const settings = settingsOf(options);
  const contract = contractOf(settings.api);
  const { validators } = contract;
  const judge = new Judge(contract, settings.judgeLimit);
  const ledger = new Ledger(settings, validators.document);
  const jobs = settings.webhooksTo && new StartedJobs(contract);
  const pool = poolTo(settings.upstreamUrl.origin, UPSTREAM_CONNECTIONS, settings.upstreamTimeout);
  const faults = faultStage(settings, validators, ledger);
  const answers = ownAnswers(settings, contract, ledger, faults);
  const forward = relay(settings, pool, judge, ledger, answers, faults, jobs);
  const server = await serve(settings, intake(settings, judge, ledger, answers, faults, forward), contract, ledger, pool, faults.injects, jobs);
  return { ...server, violations: ledger.recent, counts: ledger.counts, stale: () => ledger.stale(), coverage: () => ledger.coverage.report() };
}
