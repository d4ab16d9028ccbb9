// The one set of webhook signature test vectors that client-runtime, both clients and contract-core
// are tested against: the services' and the standard's own published values, not ours.

/** Firecrawl's own test of its signing (`buildWebhookDeliveryHeaders` in the service's delivery.test.ts). */
export const firecrawlVector = {
  scheme: { scheme: "hmac-sha256-hex", signatureHeader: "X-Firecrawl-Signature", prefix: "sha256=" } as const,
  secret: "secret",
  body: '{"success":true,"type":"crawl.page","id":"crawl-123","webhookId":"webhook-123","data":[]}',
  signature: "sha256=29729c39fd5f57c6f4d50c86dd20256a5d77b7b39d19531c17805163fb830d40",
};

/** The Standard Webhooks library's "sign function works" vector (libraries/javascript/src/webhook.test.ts), under Autumn's svix- header names. */
export const standardWebhooksVector = {
  scheme: { scheme: "standard-webhooks", idHeader: "svix-id", timestampHeader: "svix-timestamp", signatureHeader: "svix-signature", toleranceSeconds: 300 } as const,
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
  /** A well-formed v1 signature made with another key, as sent beside the right one while a secret is rotated. */
  otherSignature: "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
  /** A valid secret that is not the vector's. */
  otherSecret: `whsec_${btoa("another key of 24 bytes!")}`,
};

/** The vector's headers as its sender sends them, with `overrides` (undefined removes a header). */
export function standardWebhooksHeaders(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const v = standardWebhooksVector;
  const headers: Record<string, string | undefined> = { "svix-id": v.id, "svix-timestamp": String(v.timestamp), "svix-signature": v.signature, ...overrides };
  return Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
