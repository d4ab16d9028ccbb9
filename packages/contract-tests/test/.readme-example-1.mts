import { expect, it } from "vitest";
import { optionsFromEnv, runContractTests } from "@api-contracts/contract-tests";

it("the server keeps the contract", async () => {
  const report = await runContractTests(optionsFromEnv()); // reads the CONTRACT_* variables
  expect(report.failed).toBe(0);
}, 120_000);
