import { fileURLToPath } from "node:url";
import { readmeBlockTests } from "@api-contracts/dev-tools/testing";

readmeBlockTests(fileURLToPath(new URL("..", import.meta.url)), 1);
