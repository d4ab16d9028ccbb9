import { clientTestConfig } from "@api-contracts/client-runtime/testing";

export default clientTestConfig("entitlements");
