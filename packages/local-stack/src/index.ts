export { startApiServer, startLocalStack, type ApiServerOptions, type LocalStack, type LocalStackOptions, type RunningServer } from "./stack.js";
export { main, usage } from "./cli.js";
