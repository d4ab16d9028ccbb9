// A client of a tiny API, built a client on the runtime
// without any of the project's real APIs.
import { createApiClient, type ClientFactorySettings, type CommonClientOptions } from "../../src/index.js";
import type { paths, Thing } from "./generated/things.js";

export type { paths, Thing };

export const thing: Thing = { name: "box", size: 3 };

export function createThingsClient(options: CommonClientOptions, settings: Partial<ClientFactorySettings> = {}) {
  return createApiClient<paths>(options, {
    clientName: "createThingsClient",
    keyHint: "pass any key",
    defaultBaseUrl: "https://things.invalid",
    ...settings,
  });
}
