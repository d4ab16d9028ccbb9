import { clientTestConfig } from "../entitlements-client/test/support/vitest-config.js";

export default clientTestConfig("webdata");
