import { ContractErrors, type ApiName } from "@api-contracts/contract-core";

const shared = new Map<ApiName, ContractErrors>();

/**
 * The validators of one API's bundle and its way of wording refusals, from the contract's own
 * registry. The spec's time rules (`x-rules`) are judged by the server's clock; servers on the real
 * clock share one instance per API.
 */
export function contractOf(api: ApiName, now: () => number = Date.now): ContractErrors {
  if (now !== Date.now) return new ContractErrors(api, { now });
  let contract = shared.get(api);
  if (!contract) {
    contract = new ContractErrors(api);
    shared.set(api, contract);
  }
  return contract;
}
