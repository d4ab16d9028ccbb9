// The main entry's weight in an application that bundles it whole (the README quotes the figures).
// The budget guards against growth; the 4 kB target is not reached: openapi-fetch (2.6 kB) and
// the runtime's request class (1.1 kB) alone bundle to 3.7 kB, see the README's "Bundle size".
import { fileURLToPath } from "node:url";
import { mainEntrySizeTest } from "@api-contracts/dev-tools/testing";

mainEntrySizeTest("@api-contracts/client-runtime", fileURLToPath(new URL(".", import.meta.url)), 5700);
