export { startMockServer, DEFAULT_BODY_LIMIT } from "./server.js";
export type { MockServerOptions, RunningServer, Service } from "./server.js";
export { parsePrefer, type Preference } from "./prefer.js";
