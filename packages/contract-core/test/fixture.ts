import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { ApiEntry, JsonObject } from "../src/index.js";

/** The folder the spec package exports under a wildcard key (`./live-requests/*`), read from its manifest. */
export function specExportDir(key: string): string {
  const manifest = createRequire(import.meta.url).resolve("@api-contracts/spec/package.json");
  const exported = (JSON.parse(readFileSync(manifest, "utf8")) as { exports: Record<string, string> }).exports[key];
  if (!exported) throw new Error(`@api-contracts/spec exports no ${key}`);
  return path.join(path.dirname(manifest), exported.replace("/*", ""));
}

/** A small description that uses every kind of OpenAPI-level `$ref` the validators follow. */
export function petStore(): JsonObject {
  return {
    openapi: "3.1.0",
    info: { title: "pets", version: "1" },
    paths: {
      "/pets": {
        post: {
          operationId: "createPet",
          parameters: [{ $ref: "#/components/parameters/Trace" }],
          requestBody: { $ref: "#/components/requestBodies/NewPet" },
          responses: {
            "201": { description: "created", content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } } },
            "4XX": { $ref: "#/components/responses/Problem" },
          },
        },
        get: {
          operationId: "listPets",
          parameters: [
            { name: "limit", in: "query", schema: { type: "integer", minimum: 1 } },
            { name: "tags", in: "query", schema: { type: "array", items: { type: "string" } } },
            { name: "verbose", in: "query", schema: { type: "boolean" } },
          ],
          responses: {
            "200": { description: "ok", content: { "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Pet" } } }, "text/*": { schema: { type: "string" } } } },
            "204": { description: "nothing" },
            default: { $ref: "#/components/responses/Problem" },
          },
        },
      },
      "/pets/{petId}": { $ref: "#/components/pathItems/OnePet" },
      "/pets/mine": { get: { operationId: "myPets", responses: { "200": { description: "ok" } } } },
    },
    components: {
      pathItems: {
        OnePet: {
          parameters: [{ name: "petId", in: "path", required: true, schema: { type: "integer" } }],
          get: { operationId: "getPet", responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } } } } },
          delete: {
            operationId: "deletePet",
            // Replaces the path item's own `petId`.
            parameters: [{ name: "petId", in: "path", required: true, schema: { type: "string", format: "uuid" } }],
            responses: { "204": { description: "gone" } },
          },
        },
      },
      parameters: {
        Trace: {
          name: "X-Trace-Id",
          in: "header",
          required: true,
          schema: { type: "string", minLength: 3 },
          examples: { short: { $ref: "#/components/examples/ShortTrace" } },
          example: "trace-1",
        },
      },
      examples: { ShortTrace: { value: "abc" } },
      requestBodies: {
        NewPet: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/NewPet" } } } },
      },
      responses: {
        Problem: { description: "problem", content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } } },
      },
      schemas: {
        NewPet: {
          type: "object",
          required: ["name"],
          additionalProperties: false,
          properties: {
            name: { type: "string" },
            kind: { enum: ["cat", "dog"] },
            toys: { type: "array", items: { type: "object", required: ["label"], properties: { label: { type: "string" } } } },
          },
        },
        Pet: { type: "object", required: ["id", "name"], properties: { id: { type: "integer" }, name: { type: "string" } } },
        Problem: { type: "object", required: ["title"], properties: { title: { type: "string" } } },
      },
    },
  };
}

/** The facts of the pet store: strict JSON bodies, checks in the common order, problems as `{title, detail}`. */
export function petFacts(): ApiEntry {
  const refusal = (status: number, title: string) => ({ status, body: { title, detail: "{problems}{message}" } });
  return {
    name: "pets",
    title: "pets",
    mockPort: 4012,
    key: { prefix: "pk_", variable: "PETS_API_KEY" },
    limits: { bodyBytes: 1024 * 1024 },
    requests: {
      bodies: [
        { mediaTypes: ["application/json", "application/*+json"], read: "json" },
        { mediaTypes: ["*/*"], read: "refuse" },
      ],
      checks: ["authorization", "body", "parameters", "schema"],
    },
    errors: {
      codeMember: "title",
      messageMember: "detail",
      refusals: {
        invalid: refusal(400, "invalid"),
        "unauthorized-missing": refusal(401, "unauthorized"),
        "unauthorized-empty": refusal(401, "unauthorized"),
        "unauthorized-malformed": refusal(401, "unauthorized"),
        "unauthorized-unknown-key": refusal(401, "unauthorized"),
        "not-found": refusal(404, "not found"),
        "method-not-allowed": { status: 405, body: { title: "method not allowed", detail: "allowed: {allowed}" } },
        "malformed-json": refusal(400, "malformed"),
        "unsupported-media-type": { status: 415, body: { title: "unsupported", detail: "{received}; send {supported}" } },
        "bad-request": refusal(400, "bad request"),
        "too-large": { status: 413, body: { title: "too large", detail: "over {limit} bytes" } },
        timeout: refusal(408, "timeout"),
        "bad-gateway": refusal(502, "bad gateway"),
        internal: refusal(500, "internal"),
      },
    },
  };
}
