export { startMockServer, DEFAULT_HEADERS_TIMEOUT, DEFAULT_REQUEST_TIMEOUT } from "./server.js";
export type { MockServerOptions, RunningServer, Service } from "./server.js";
