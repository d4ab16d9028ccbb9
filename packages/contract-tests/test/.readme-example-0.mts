import { runContractTests } from "@api-contracts/contract-tests";

const report = await runContractTests({ service: "webdata", baseUrl: "http://127.0.0.1:40407", apiKey: "fc-0123456789abcdef0123456789abcdef" });
console.log(`${report.passed} passed, ${report.failed} failed`);
