import { clientTestConfig } from "./test/support/vitest-config.js";

export default clientTestConfig("entitlements");
