// The ./middleware entry: the web data client's opt-in middleware, those every client of this
// project shares. Its `retry()` repeats a `POST /v2/crawl` only when it carries an
// `x-idempotency-key` header, so a retry never starts a second crawl. The main entry does not
// import this file, so an application without retries does not bundle it.
export * from "@api-contracts/client-runtime/middleware";
