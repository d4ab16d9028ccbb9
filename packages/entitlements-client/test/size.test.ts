// The main entry's weight in an application that bundles it whole (the README quotes the figures
// and what each part weighs). The budget guards against growth. The 4 kB target is not met:
// openapi-fetch's createClient alone bundles to 2.6 kB, and the runtime's request class and its
// retry add about 0.9 kB each; see the README's "Bundle size".
import { fileURLToPath } from "node:url";
import { mainEntrySizeTest } from "@api-contracts/dev-tools/testing";

mainEntrySizeTest("@api-contracts/entitlements-client", fileURLToPath(new URL(".", import.meta.url)), 5700);
