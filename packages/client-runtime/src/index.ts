export * from "./middleware.js";
export {
  WebhookVerificationError,
  headerValue,
  bodyBytes,
  bodyText,
  timingSafeEqual,
  verifyHmacSha256Hex,
  shapeMismatch,
  parseWebhookEvent,
  type WebhookVerificationReason,
  type WebhookBody,
  type WebhookHeadersInput,
  type HmacSha256HexScheme,
  type WebhookShape,
  type WebhookEventOf,
} from "./webhooks.js";
