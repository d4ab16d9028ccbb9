import { describe, expect, it } from "vitest";
import { webhookSource } from "../src/generate.js";

const tiny = {
  openapi: "3.1.0",
  webhooks: {
    "thing.done": { $ref: "#/components/pathItems/ThingDone" },
  },
  "x-webhook-signature": { scheme: "hmac-sha256-hex", signatureHeader: "X-Sig", prefix: "sha256=", description: "prose the client does not need" },
  components: {
    pathItems: {
      ThingDone: { post: { requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/ThingDone" } } } } } },
    },
    schemas: {
      Envelope: { type: "object", required: ["type", "id"], properties: { type: { type: "string" }, id: { type: "string" }, note: { type: "string" } } },
      ThingDone: {
        allOf: [{ $ref: "#/components/schemas/Envelope" }],
        type: "object",
        required: ["items"],
        properties: {
          type: { const: "thing.done" },
          items: { type: "array", items: { type: "object", required: ["size"], properties: { size: { type: ["number", "null"] } } } },
        },
      },
    },
  },
};

describe("the generated webhook section", () => {
  it("states the scheme without its prose, and each event's required members with their types, through $refs and allOf", () => {
    const source = webhookSource(tiny);
    expect(source).toContain('export const webhookSignature = {"scheme":"hmac-sha256-hex","signatureHeader":"X-Sig","prefix":"sha256="} as const;');
    expect(source).toContain(
      '"thing.done": {"type":"object","members":{"items":{"type":"array","items":{"type":"object","members":{"size":{"type":["number","null"]}}}},"type":{"type":"string","const":"thing.done"},"id":{"type":"string"}}},',
    );
  });

  it("is empty for a description without webhooks", () => {
    expect(webhookSource({ openapi: "3.1.0" })).toContain("export const webhookSignature = null as const;\n");
    expect(webhookSource({ openapi: "3.1.0" })).toContain("export const webhookShapes = {\n} as const;");
  });
});
