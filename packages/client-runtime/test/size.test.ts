// The main entry's weight in an application that bundles it whole, against the 4 kB budget (the
// README quotes the figures and what each part weighs): retry and fail-open are on ./middleware and
// webhook verification on ./webhooks, each measured apart.
import { fileURLToPath } from "node:url";
import { mainEntrySizeTest } from "@api-contracts/dev-tools/testing";

mainEntrySizeTest("@api-contracts/client-runtime", fileURLToPath(new URL(".", import.meta.url)));
