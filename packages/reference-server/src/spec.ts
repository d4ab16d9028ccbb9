import { ContractErrors, type ApiName } from "@api-contracts/contract-core";

export type { ApiName };

const shared = new Map<ApiName, ContractErrors>();

/**
 * The validators of one API's bundle and its way of wording refusals, from the contract's own
 * registry; one instance per API serves every server of the process.
 */
export function contractOf(api: ApiName): ContractErrors {
  let contract = shared.get(api);
  if (!contract) {
    contract = new ContractErrors(api);
    shared.set(api, contract);
  }
  return contract;
}
