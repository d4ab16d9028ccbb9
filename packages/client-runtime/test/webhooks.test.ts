import { describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { WebhookVerificationError, parseWebhookEvent, shapeMismatch, signWebhook, checkWebhookSignature, type WebhookShape } from "../src/webhooks.js";
import { firecrawlVector as firecrawl, loadForWebRuntime, standardWebhooksHeaders as standardHeaders, standardWebhooksVector as standard } from "@api-contracts/dev-tools/testing";

describe("checking a payload against its shape", () => {
  const shape: WebhookShape = { type: "object", members: { type: { type: "string", const: "thing.done" }, items: { type: "array", items: { type: "object", members: { size: { type: ["number", "null"] } } } } } };

  it("names the first member that is missing or of another type, array positions included", () => {
    expect(shapeMismatch({ type: "thing.done", items: [{ size: 1 }, { size: null }] }, shape)).toBeUndefined();
    expect(shapeMismatch({ type: "thing.done", items: [{ size: 1 }, {}] }, shape)).toBe("items[1].size is missing");
    expect(shapeMismatch({ type: "thing.done", items: [{ size: "1" }] }, shape)).toBe("items[0].size must be number or null");
    expect(shapeMismatch({ type: "thing.undone", items: [] }, shape)).toBe('type must be "thing.done"');
    expect(shapeMismatch([], shape)).toBe("the body must be object");
  });

  it("parses only JSON naming a known event, and never reads an inherited member as an event", () => {
    const shapes = { "thing.done": shape };
    expect(parseWebhookEvent('{"type":"thing.done","items":[]}', shapes)).toEqual({ type: "thing.done", items: [] });
    for (const text of ["{", '{"type":"toString"}', '{"type":"constructor"}', "null"]) {
      expect(() => parseWebhookEvent(text, shapes), text).toThrow(WebhookVerificationError);
    }
  });
});

describe("the signatures it re-exports", () => {
  it("are @api-contracts/webhook-signatures', and run with nothing but web-standard globals from this entry too", async () => {
    const here = fileURLToPath(new URL(".", import.meta.url));
    const bundled = await loadForWebRuntime<{ signWebhook: typeof signWebhook; checkWebhookSignature: typeof checkWebhookSignature }>(here, "@api-contracts/client-runtime/webhooks", ["signWebhook", "checkWebhookSignature"]);
    expect(bundled.signWebhook(firecrawl.scheme, firecrawl.body, firecrawl.secret)).toEqual({ "X-Firecrawl-Signature": firecrawl.signature });
    expect(bundled.checkWebhookSignature(standard.scheme, { headers: standardHeaders(), body: standard.body }, standard.secret, { now: () => standard.timestamp * 1000 })).toEqual({ ok: true });
  });
});
