import { clientTestConfig } from "@api-contracts/dev-tools/testing";

export default clientTestConfig("entitlements");
