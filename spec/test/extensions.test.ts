// The spec's machine-readable extras must point at things that exist: an `x-rules` entry names a
// member of its schema and a known rule kind, a link names an operation and its parameters, and
// `x-webhook-signature` names headers every webhook documents.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const specDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bundles = Object.fromEntries(
  ["entitlements", "webdata"].map((api) => [api, JSON.parse(readFileSync(path.join(specDir, "dist", `${api}.openapi.json`), "utf8"))]),
);
const ruleMembers: Record<string, string[]> = {
  "time-window": ["rule", "member", "encoding", "maxAheadMs", "maxBehindMs", "description"],
  "at-most-fraction": ["rule", "member", "of", "fraction", "ofDefault", "description"],
  "wait-total": ["rule", "member", "maxMs", "selectorWaitMs", "description"],
  "no-schemaless-object": ["rule", "member", "description"],
};

interface Rule { rule: string; member: string; of?: string; encoding?: string; fraction?: number; description: string }

function schemasWithRules(document: any): { name: string; schema: any; rules: Rule[] }[] {
  return Object.entries<any>(document.components.schemas)
    .filter(([, schema]) => schema["x-rules"])
    .map(([name, schema]) => ({ name, schema, rules: schema["x-rules"] }));
}

describe("x-rules", () => {
  it("the rules the sources state are on their schemas", () => {
    const found = Object.values(bundles).flatMap((document) =>
      schemasWithRules(document).flatMap(({ name, rules }) => rules.map((rule) => `${name}.${rule.member}: ${rule.rule}`)),
    );
    expect(found.sort()).toEqual([
      "ChangeTrackingFormat.schema: no-schemaless-object",
      "CheckLock.expires_at: time-window",
      "JsonFormat.schema: no-schemaless-object",
      "ScrapeOptions.actions: wait-total",
      "ScrapeOptions.waitFor: at-most-fraction",
      "TrackRequest.timestamp: time-window",
    ]);
  });

  for (const [api, document] of Object.entries(bundles)) {
    for (const { name, schema, rules } of schemasWithRules(document)) {
      it(`${api} ${name}: every rule has a known kind, only its own members, and names numeric members of the schema`, () => {
        for (const rule of rules) {
          expect(Object.keys(ruleMembers)).toContain(rule.rule);
          expect(Object.keys(rule).filter((key) => !ruleMembers[rule.rule]!.includes(key))).toEqual([]);
          expect(rule.description).toMatch(/\S/);
          // A wait total sums a list of actions, a schemaless-object rule reads any JSON Schema; every other rule reads numbers.
          const kinds = rule.rule === "wait-total" ? ["array"] : rule.rule === "no-schemaless-object" ? [undefined] : ["number", "integer"];
          for (const member of [rule.member, rule.of].filter(Boolean)) {
            expect(schema.properties, `${name}.${member}`).toHaveProperty([member!]);
            expect(kinds, `${name}.${member}`).toContain(schema.properties?.[member!]?.type);
          }
          if (rule.rule === "time-window") expect(["epoch-milliseconds", "date-time"]).toContain(rule.encoding);
          if (rule.rule === "at-most-fraction") expect(rule.fraction).toBeGreaterThan(0);
        }
      });
    }
  }
});

describe("links", () => {
  for (const [api, document] of Object.entries(bundles)) {
    const operations = new Map<string, any>();
    for (const item of Object.values<any>(document.paths)) {
      for (const operation of Object.values<any>(item)) {
        if (operation?.operationId) operations.set(operation.operationId, { operation, pathParameters: item.parameters ?? [] });
      }
    }
    const resolve = (node: any) => (node?.$ref ? resolve(node.$ref.slice(2).split("/").reduce((n: any, t: string) => n[t], document)) : node);
    const links = [...operations.entries()].flatMap(([from, { operation }]) =>
      Object.entries<any>(operation.responses).flatMap(([status, response]) =>
        Object.entries<any>(resolve(response).links ?? {}).map(([name, link]) => ({ where: `${from} ${status} ${name}`, link })),
      ),
    );

    it(`${api}: the documented links are there`, () => {
      expect(links.map((entry) => entry.where).sort()).toEqual(
        api === "entitlements"
          ? ["checkAccess 200 finalizeLock", "checkAccessLegacy 200 finalizeLock"]
          : ["startCrawl 200 cancelCrawl"],
      );
    });

    for (const { where, link } of links) {
      it(`${api} ${where}: names an existing operation, its parameters and its body members`, () => {
        const target = operations.get(link.operationId);
        expect(target, link.operationId).toBeDefined();
        const parameterNames = [...target.pathParameters, ...(target.operation.parameters ?? [])].map((p: any) => resolve(p).name);
        for (const name of Object.keys(link.parameters ?? {})) expect(parameterNames).toContain(name);
        if (link.requestBody) {
          const schema = resolve(resolve(target.operation.requestBody).content["application/json"].schema);
          for (const member of Object.keys(link.requestBody)) expect(Object.keys(schema.properties)).toContain(member);
        }
      });
    }
  }
});

describe("x-webhook-signature", () => {
  const schemes: Record<string, string[]> = {
    "hmac-sha256-hex": ["scheme", "signatureHeader", "prefix", "description"],
    "standard-webhooks": ["scheme", "idHeader", "timestampHeader", "signatureHeader", "toleranceSeconds", "description"],
  };

  it("both APIs describe webhooks, and each states how its calls are signed", () => {
    for (const document of Object.values(bundles)) {
      expect(Object.keys(document.webhooks ?? {}).length).toBeGreaterThan(0);
      expect(Object.keys(schemes)).toContain(document["x-webhook-signature"]?.scheme);
    }
  });

  for (const [api, document] of Object.entries(bundles)) {
    const signature = document["x-webhook-signature"] ?? {};
    it(`${api}: the scheme has only its own members, and every webhook documents its headers`, () => {
      expect(Object.keys(signature).filter((key) => !schemes[signature.scheme]!.includes(key))).toEqual([]);
      expect(signature.description).toMatch(/\S/);
      const headers = ["idHeader", "timestampHeader", "signatureHeader"].map((key) => signature[key]).filter(Boolean);
      const resolve = (node: any): any => (node?.$ref ? resolve(node.$ref.slice(2).split("/").reduce((n: any, t: string) => n[t], document)) : node);
      for (const [event, item] of Object.entries<any>(document.webhooks)) {
        const documented = (item.post.parameters ?? []).map(resolve).filter((p: any) => p.in === "header").map((p: any) => p.name.toLowerCase());
        for (const header of headers) expect(documented, `${event} documents ${header}`).toContain(header.toLowerCase());
        const schema = resolve(item.post.requestBody.content["application/json"].schema);
        const type = schema.properties?.type ?? schema.allOf?.map(resolve).find((part: any) => part.properties?.type)?.properties.type;
        expect(schema.properties?.type?.const ?? type?.const, `${event}: the payload's type is the event`).toBe(event);
      }
    });
  }
});
