export { startMockServer, DEFAULT_BODY_LIMIT, DEFAULT_HEADERS_TIMEOUT, DEFAULT_REQUEST_TIMEOUT } from "./server.js";
export type { MockServerOptions, RunningServer, Service } from "./server.js";
export { parsePrefer, type Preference, type PreferredFault } from "./prefer.js";
