// The main entry: what every client needs to make calls. The opt-in middleware are on
// ./middleware and webhook signatures on ./webhooks, so an application bundles only what it uses.
export { createApiClient, requireApiKey, type ClientFactorySettings, type CommonClientOptions } from "./client.js";
export { TimeoutError } from "./deadline.js";
export { ClientRequest } from "./request.js";
export type { Middleware } from "openapi-fetch";
