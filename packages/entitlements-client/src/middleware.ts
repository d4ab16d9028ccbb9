// The `./middleware` subpath, kept for code written against it: the shared middleware now live in
// @api-contracts/client-runtime.
export {
  ClientRequest,
  TimeoutError,
  bearerAuth,
  createApiClient,
  idempotentOrKeyed,
  isNetworkError,
  requireApiKey,
  retry,
  retryAfterMs,
  timeout,
  type CommonClientOptions,
  type Middleware,
  type RetryEvent,
  type RetryMiddlewareOptions,
  type RetryOptions,
  type RetrySafety,
} from "@api-contracts/client-runtime";
