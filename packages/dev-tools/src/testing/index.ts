// Test support every client package uses: local servers, the bundle's examples, the TypeScript
// compiler, packed installs, the README and generated-file checks, and the shared vitest setup.
export { startServer, startFlakyServer, sendJson, loadBundle, specExample, webhookExamples, type Failure, type Handler, type LocalServer, type RecordedRequest } from "./servers.js";
export { compile, firstTsBlock, tsBlockUnder } from "./typescript.js";
export { installPacked, filesReachedFromExports, npmEnv, runtimeClosure, startCommand, type Consumer, type InstallOptions, type LocalRegistry, type PackReport } from "./consumer.js";
export { generatedDrift, runReadmeExample, runReadmeServer, type Drift } from "./checks.js";
export { readmeBlockTests } from "./readme-blocks.js";
export { clientTestConfig } from "./vitest-config.js";
export { mockServerSetup, type StartMockServer } from "./mock-server.js";
export { failureReason, loadForWebRuntime } from "./webhooks.js";
export { firecrawlVector, standardWebhooksVector, standardWebhooksHeaders } from "./webhook-vectors.js";
export { bundleEntry, kilobytes, mainEntrySizeTest, type EntryBundle } from "./bundle-size.js";
export { THIRD_API, THIRD_API_DIR } from "./third-api.js";
export { liveRequests, type LiveRequest } from "./live-requests.js";
