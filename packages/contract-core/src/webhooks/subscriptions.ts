// A request's webhook member (its name is the API's facts': `jobs.webhookMember`) as the service
// reads it, and what a received call must keep of it: what the contract says about a subscription,
// read by the servers that send calls and by the judges of the calls received.
import { cached, escapePointer, follow, isObject, resolvePointer, type JsonObject } from "../document/pointer.js";
import { normalizeHeaders, type HeaderValues } from "../wire/headers.js";

/**
 * A request's webhook member as the service reads it: where to call, with which extra headers,
 * which `metadata` to echo, and which events (short names: `started`, `page`).
 */
export interface WebhookSubscription {
  url: string;
  headers: Record<string, string>;
  metadata: Record<string, string>;
  /** Short event names; an empty list (or none given) means every event. */
  events: string[];
}

const stringRecord = (value: unknown): Record<string, string> => {
  const record: Record<string, string> = {};
  if (!isObject(value)) return record;
  for (const [name, member] of Object.entries(value)) if (typeof member === "string") record[name] = member;
  return record;
};

/**
 * The `default` of each member of the object form of the webhook member of an operation's JSON
 * request body, `$ref`s followed; null when the body has no such member.
 */
function readWebhookDefaults(document: JsonObject, method: string, path: string, webhookMember: string): JsonObject | null {
  const at = (node: unknown, pointer: string): unknown => follow(document, node, pointer).node;
  const operation = resolvePointer(document, `/paths/${escapePointer(path)}/${method.toLowerCase()}`);
  const body = at(isObject(operation) ? operation.requestBody : undefined, "#/requestBody");
  const content = isObject(body) && isObject(body.content) ? body.content["application/json"] : undefined;
  const schema = at(isObject(content) ? content.schema : undefined, "#/schema");
  const member = at(isObject(schema) && isObject(schema.properties) ? schema.properties[webhookMember] : undefined, "#/webhook");
  if (!isObject(member)) return null;
  const branches = [member, ...(Array.isArray(member.oneOf) ? member.oneOf : []), ...(Array.isArray(member.anyOf) ? member.anyOf : [])];
  for (const branch of branches.map((node) => at(node, "#/webhook"))) {
    if (!isObject(branch) || !isObject(branch.properties)) continue;
    const defaults: JsonObject = {};
    for (const [name, property] of Object.entries(branch.properties)) {
      const resolved = at(property, "#/property");
      if (isObject(resolved) && "default" in resolved) defaults[name] = resolved.default;
    }
    return defaults;
  }
  return {};
}

const defaultsSeen = new WeakMap<JsonObject, Map<string, JsonObject | null>>();

/**
 * The defaults of the object form of an operation's webhook request member, or null when its
 * requests carry no webhook (read once per document, operation and member).
 */
function webhookDefaults(document: JsonObject, method: string, path: string, webhookMember: string): JsonObject | null {
  const seen = cached(defaultsSeen, document, () => new Map());
  return cached(seen, `${method.toUpperCase()} ${path} ${webhookMember}`, () => readWebhookDefaults(document, method, path, webhookMember));
}

/** Whether an operation's JSON request body has the webhook member (`webhook` of `POST /v2/crawl`). */
export function takesWebhook(document: JsonObject, operation: { method: string; path: string }, webhookMember: string): boolean {
  return webhookDefaults(document, operation.method, operation.path, webhookMember) !== null;
}

/**
 * The webhook member of an accepted request body (`webhook` of `POST /v2/crawl`), read as the
 * service reads it: a bare string is `{url}`, members left out take the description's defaults.
 * Undefined when the body has no webhook, or the operation's requests carry none.
 */
export function webhookSubscription(document: JsonObject, operation: { method: string; path: string }, body: unknown, webhookMember: string): WebhookSubscription | undefined {
  const member = isObject(body) ? body[webhookMember] : undefined;
  if (member === undefined || member === null) return undefined;
  const given: JsonObject = typeof member === "string" ? { url: member } : isObject(member) ? member : {};
  if (typeof given.url !== "string") return undefined;
  const defaults = webhookDefaults(document, operation.method, operation.path, webhookMember);
  if (defaults === null) return undefined;
  const events = Array.isArray(given.events) ? given.events : Array.isArray(defaults.events) ? defaults.events : [];
  return {
    url: given.url.trim(),
    headers: stringRecord(given.headers ?? defaults.headers),
    metadata: stringRecord(given.metadata ?? defaults.metadata),
    events: events.filter((event): event is string => typeof event === "string"),
  };
}

/** Whether a subscription takes an event (`crawl.page` is taken by `page`, or by an empty list). */
export function subscribesTo(subscription: WebhookSubscription, event: string): boolean {
  if (subscription.events.length === 0) return true;
  const short = event.slice(event.indexOf(".") + 1);
  return subscription.events.includes(short) || subscription.events.includes(event);
}

/**
 * Calls a service sends without waiting for each other may arrive out of the order they were sent
 * in (receivers are told to order them by event). A call out of order by at most this many
 * milliseconds may have been sent in order; by more, it was not.
 */
export const DELIVERY_ORDER_GRACE_MS = 250;

/** How a received call disagrees with the webhook that asked for it. */
export interface SubscriptionMismatch {
  /** What the webhook asked that the call does not keep. */
  member: "events" | "metadata" | "headers";
  /** The header's name, for `headers`. */
  name?: string;
  message: string;
}

/** The same members with the same values, whatever their order; nothing at all is an empty record. */
function sameRecord(value: unknown, expected: Record<string, string>): boolean {
  if (value === undefined) value = {};
  if (!isObject(value)) return false;
  const sorted = (record: object) => JSON.stringify(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return sorted(value) === sorted(expected);
}

/**
 * Where a received call (its payload and headers) does not keep what its webhook asked: an event
 * the webhook's `events` do not take, `metadata` not echoed exactly, a header of the webhook's
 * `headers` missing or changed.
 */
export function subscriptionMismatches(subscription: WebhookSubscription, call: { payload: unknown; headers: HeaderValues }): SubscriptionMismatch[] {
  const found: SubscriptionMismatch[] = [];
  const payload = isObject(call.payload) ? call.payload : {};
  if (typeof payload.type === "string" && !subscribesTo(subscription, payload.type)) {
    found.push({ member: "events", message: `${payload.type} was delivered; the webhook asked for ${subscription.events.join(", ")}` });
  }
  if (!sameRecord(payload.metadata, subscription.metadata)) {
    found.push({ member: "metadata", message: `metadata ${JSON.stringify(payload.metadata ?? null)} is not the webhook's ${JSON.stringify(subscription.metadata)}` });
  }
  const headers = normalizeHeaders(call.headers);
  for (const [name, value] of Object.entries(subscription.headers)) {
    const got = headers[name.toLowerCase()];
    // Values stay out of the message: a webhook's headers often carry the receiver's own token.
    if (got !== value) found.push({ member: "headers", name, message: got === undefined ? `header ${name} is missing` : `header ${name} is not the value the webhook asked for` });
  }
  return found;
}
