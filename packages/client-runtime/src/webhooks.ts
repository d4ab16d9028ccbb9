// A received webhook call verified as the typed clients' `verifyWebhook` does it: its signature
// (@api-contracts/webhook-signatures, the one implementation contract-core uses too, re-exported
// here), then its payload against the shape generated from the description. Synchronous, free of
// Node built-ins: it runs in Node, browsers, Bun, Deno and edge runtimes alike. A secret is never
// part of a message.
import { bodyText, checkWebhookSignature, type SignatureCheckOptions, type SignatureFailure, type WebhookBody, type WebhookHeadersInput, type WebhookSignatureScheme } from "@api-contracts/webhook-signatures";

export * from "@api-contracts/webhook-signatures";

/** Why a received webhook call was not accepted: its signature's failure, or a body that is not the payload of a documented event. */
export type WebhookVerificationReason = SignatureFailure | "invalid_body";

/** Thrown by `verifyWebhook` when a call must not be trusted or used; `reason` says why. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  readonly reason: WebhookVerificationReason;
  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

type JsonType = "object" | "array" | "string" | "number" | "integer" | "boolean" | "null";

/**
 * What a payload always carries, generated from the description at build time: the JSON type(s)
 * of a value, its `const` when it has one, the members it always has (with their own shapes) and
 * the shape of its items.
 */
export interface WebhookShape {
  readonly type?: JsonType | readonly JsonType[];
  readonly const?: string | number | boolean | null;
  readonly members?: Readonly<Record<string, WebhookShape>>;
  readonly items?: WebhookShape;
}

function jsonType(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value as JsonType;
}

/** The first place where `value` is not of `shape`, as a sentence; undefined when it is. */
export function shapeMismatch(value: unknown, shape: WebhookShape, where = "the body"): string | undefined {
  const types = shape.type === undefined ? undefined : ([] as JsonType[]).concat(shape.type);
  const actual = jsonType(value);
  if (types && !types.includes(actual) && !(actual === "integer" && types.includes("number"))) return `${where} must be ${types.join(" or ")}`;
  if (shape.const !== undefined && value !== shape.const) return `${where} must be ${JSON.stringify(shape.const)}`;
  if (shape.members && actual === "object") {
    const object = value as Record<string, unknown>;
    for (const [name, member] of Object.entries(shape.members)) {
      const at = `${where === "the body" ? "" : `${where}.`}${name}`;
      if (!Object.hasOwn(object, name)) return `${at} is missing`;
      const found = shapeMismatch(object[name], member, at);
      if (found) return found;
    }
  }
  if (shape.items && actual === "array") {
    const items = value as unknown[];
    for (let i = 0; i < items.length; i++) {
      const found = shapeMismatch(items[i], shape.items, `${where === "the body" ? "" : where}[${i}]`);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Parses a verified body and checks it against the shape of the event its `type` names. Throws a
 * {@link WebhookVerificationError} `invalid_body` when it is not JSON, names no documented event,
 * or lacks a member the event always has.
 */
export function parseWebhookEvent<Event>(text: string, shapes: Readonly<Record<string, WebhookShape>>): Event {
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError("invalid_body", "the body is not JSON");
  }
  const type = typeof payload === "object" && payload !== null && !Array.isArray(payload) ? (payload as { type?: unknown }).type : undefined;
  const shape = typeof type === "string" && Object.hasOwn(shapes, type) ? shapes[type] : undefined;
  if (!shape) throw new WebhookVerificationError("invalid_body", `the body's type is not one of ${Object.keys(shapes).join(", ")}`);
  const mismatch = shapeMismatch(payload, shape);
  if (mismatch) throw new WebhookVerificationError("invalid_body", `not a ${type} payload: ${mismatch}`);
  return payload as Event;
}

/**
 * The payload of every webhook of a description, as a union discriminated by `type`, from the
 * `webhooks` interface openapi-typescript generates.
 */
export type WebhookEventOf<Webhooks> = {
  [Event in keyof Webhooks]: Webhooks[Event] extends { post: { requestBody: { content: { "application/json": infer Payload } } } } ? Payload : never;
}[keyof Webhooks];

/**
 * What each client's `verifyWebhook` does: checks the call's signature as `scheme` says, then
 * parses the body and checks it against the shape of the event it names. Throws a
 * {@link WebhookVerificationError} when the call must not be trusted or used.
 */
export function verifyWebhookCall<Event>(
  scheme: WebhookSignatureScheme,
  shapes: Readonly<Record<string, WebhookShape>>,
  body: WebhookBody,
  headers: WebhookHeadersInput,
  secret: string,
  options?: SignatureCheckOptions,
): Event {
  const check = checkWebhookSignature(scheme, { headers, body }, secret, options);
  if (!check.ok) throw new WebhookVerificationError(check.reason, check.message);
  return parseWebhookEvent<Event>(bodyText(body), shapes);
}
