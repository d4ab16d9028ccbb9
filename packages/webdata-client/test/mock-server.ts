// vitest globalSetup: one mock server of the API under test for the whole run (see vitest.config.ts).
import { startMockServer } from "@api-contracts/mock-server";
import { mockServerSetup } from "@api-contracts/dev-tools/testing";

export default mockServerSetup(startMockServer);
